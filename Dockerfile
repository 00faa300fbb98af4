# Builds the labelbase binary with the web app embedded.
FROM node:20-bookworm-slim AS web
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm install --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM golang:1.26-bookworm AS go
WORKDIR /src
# go.work only exists to find go-task (tools/); the binary builds from go.mod.
ENV GOWORK=off
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=web /src/frontend/dist ./frontend/dist
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/labelbase ./cmd/labelbase

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=go /out/labelbase /usr/local/bin/labelbase
ENV LISTEN_ADDR=:8080
EXPOSE 8080
# Liveness (/livez): a database restart must not mark every gateway
# unhealthy. Balancers should route on /readyz instead.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s CMD ["/usr/local/bin/labelbase", "health"]
USER nonroot
ENTRYPOINT ["/usr/local/bin/labelbase"]
CMD ["serve"]
