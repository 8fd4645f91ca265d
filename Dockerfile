# One image for every Comanda service; the command picks which one runs.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --omit=dev
COPY tsconfig.base.json tsconfig.json .swcrc ./
COPY apps ./apps
COPY libs ./libs
USER node
ENV SWC_NODE_PROJECT=/app/tsconfig.json
EXPOSE 3000
CMD ["node", "-r", "@swc-node/register", "apps/standalone/src/main.ts"]
