# syntax=docker/dockerfile:1
# Marea's container (docs/operations.md, "Container"): build with every dependency, then run on production
# dependencies only, as the unprivileged `node` user, on Node 24 LTS (the same major as .nvmrc and `engines`).
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Dependencies exactly as package-lock.json pins them; `patches/` first, for patch-package's postinstall.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund

# 2. The Next build, then the dev dependencies dropped (the patched postgres.js stays patched: prune removes
#    packages, it reinstalls none).
FROM deps AS build
COPY . .
RUN npx next build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# 3. What runs: the production start (server/host/main.ts, through tsx) over the build. Only what it reads at run
#    time: its sources (server/), the build (.next/), the migrations (drizzle/), the guides /docs renders (docs/).
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
COPY --from=build /app/package.json /app/tsconfig.json /app/next.config.ts ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/server ./server
COPY --from=build /app/drizzle ./drizzle
COPY --from=build /app/docs ./docs
COPY --from=build --chown=node:node /app/.next ./.next
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
# /healthz answers 200 while the database answers (docs/operations.md, "Health"); no curl in a slim image.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself (graceful drain, docs/operations.md, "Stopping").
CMD ["node", "--import", "tsx", "server/host/main.ts"]
