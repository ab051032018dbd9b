# Build stage: every dependency (esbuild, the Prisma CLI), then the compiled service in dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts tsconfig.json ./
COPY prisma ./prisma
# postinstall generates the Prisma client into src/db/generated; the build compiles it with the rest.
RUN npm ci
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# Runtime stage: production dependencies, the compiled service, and the migrations it applies at start
# (dist/db/migrations.js reads them from ../../prisma, that is /app/prisma).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
COPY package.json package-lock.json ./
# No install scripts: the generated client is already compiled into dist/, and no other package the server loads needs one.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY prisma ./prisma
COPY --from=build /app/dist ./dist
# Owned by the unprivileged user: a named volume mounted here starts with this owner.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1, without npm or an init in between: `docker stop`'s SIGTERM reaches src/server.ts, which
# drains in-flight requests and exits 0 (test/server/server.test.ts runs this very command). On PostgreSQL
# it forks its server processes (src/serverProcesses.ts), passes the signal on and reaps each one as it
# exits (Node's cluster), so there are no orphans for an init to reap.
CMD ["node", "dist/server.js"]
