// The security suite's distributed Jest project attacks a distributed deployment (src/support/deployment.ts).
process.env.SECURITY_TARGET = 'distributed';
