# One image for every Comanda service; its command picks which one runs
# (`node dist/apps/<service>/main.js`, standalone by default). Multi-stage: the TypeScript
# sources are compiled in `build`; the final stage holds the compiled JavaScript and the
# production dependencies only, and runs as the non-root `node` user.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json .swcrc ./
COPY tools ./tools
COPY libs ./libs
COPY apps ./apps
RUN node tools/build.js

FROM node:20-bookworm-slim AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# The SWC packages are what `npm start` and the tests compile TypeScript with; the compiled
# image never loads them.
RUN npm ci --no-audit --no-fund --omit=dev \
  && rm -rf node_modules/@swc node_modules/@swc-node \
  && npm cache clean --force

FROM node:20-bookworm-slim
WORKDIR /app
# A young generation of 3 × 64 MiB at most, as `npm start` (ADR 0045): requests' short-lived
# objects die there instead of being promoted and collected by mark-compact. The Kubernetes
# manifests set a smaller one for their 384 MiB pods (comanda-config).
ENV NODE_ENV=production \
    COMANDA_DATA_DIR=/data \
    NODE_OPTIONS=--max-semi-space-size=64
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json LICENSE ./
# Standalone mode's embedded PostgreSQL keeps its data here; distributed services do not use it.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=6 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/apps/standalone/main.js"]
