// The security suite's standalone Jest project attacks a standalone deployment (src/support/deployment.ts).
process.env.SECURITY_TARGET = 'standalone';
