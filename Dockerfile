# syntax=docker/dockerfile:1
# cuzk: GPU proving agent. Build:
#   docker build -t cuzk:$(git rev-parse --short HEAD) .
# Run (see ops/deploy/cuzk-host for the full command line):
#   docker run --gpus all --runtime=nvidia --ulimit memlock=-1:-1 \
#     -v /etc/cuzk:/etc/cuzk:ro -v /var/lib/cuzk/params:/var/lib/cuzk/params:ro -p 9464:9464 cuzk:TAG
ARG CUDA_VERSION=13.0.1

# ---- build stage: CUDA devel image + -dev packages ------------------------------------------
FROM nvidia/cuda:${CUDA_VERSION}-devel-ubuntu24.04 AS build
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config git ca-certificates \
      librdkafka-dev libavro-dev libjansson-dev libconfig-dev libssl-dev \
      libmicrohttpd-dev libcurl4-openssl-dev libgmp-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# .git is not in the build context: pass the commit, e.g. --build-arg CUZK_GIT_COMMIT=$(git rev-parse --short=12 HEAD)
ARG CUZK_GIT_COMMIT=unknown
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCUZK_CUDA_ARCH=90 \
      -DCUZK_GIT_COMMIT="${CUZK_GIT_COMMIT}" \
 && cmake --build build -j"$(nproc)" --target cuzk \
 && install -D -m 0755 build/agent/cuzk /out/usr/local/bin/cuzk \
 && install -D -m 0644 ops/cuzk.example.cfg /out/usr/share/doc/cuzk/cuzk.example.cfg
# The runtime image installs exactly the Ubuntu packages that own the shared libraries cuzk
# links (CUDA's own come with the runtime base image), so no package name is guessed here.
RUN set -e; : > /out/runtime-packages.txt; \
    for lib in $(ldd /out/usr/local/bin/cuzk | awk '$3 ~ "^/" { print $3 }'); do \
      real=$(realpath "$lib"); \
      case "$real" in */cuda*|*/libcuda*) continue ;; esac; \
      owner=$(dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null || dpkg -S "$lib" 2>/dev/null) \
        || { echo "no Ubuntu package owns $lib" >&2; exit 1; }; \
      echo "${owner%%:*}" >> /out/runtime-packages.txt; \
    done; \
    sort -u -o /out/runtime-packages.txt /out/runtime-packages.txt; \
    sed -i -e '/^libc6$/d' /out/runtime-packages.txt; \
    test -s /out/runtime-packages.txt; cat /out/runtime-packages.txt

# ---- runtime stage: CUDA runtime image, runtime libraries only, non-root --------------------
FROM nvidia/cuda:${CUDA_VERSION}-runtime-ubuntu24.04 AS runtime
ARG DEBIAN_FRONTEND=noninteractive
COPY --from=build /out/runtime-packages.txt /tmp/runtime-packages.txt
RUN apt-get update \
 && xargs -a /tmp/runtime-packages.txt apt-get install -y --no-install-recommends \
      curl ca-certificates \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages.txt \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/cuzk --shell /usr/sbin/nologin cuzk \
 && install -d -o cuzk -g cuzk -m 0755 /etc/cuzk /var/lib/cuzk /var/lib/cuzk/params /var/lib/cuzk/work
COPY --from=build /out/usr/ /usr/
COPY --from=build --chown=cuzk:cuzk /out/usr/share/doc/cuzk/cuzk.example.cfg /etc/cuzk/cuzk.cfg

ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility \
    CUZK_AGENT_HTTP_LISTEN=0.0.0.0:9464 \
    CUZK_AGENT_PARAMS_DIR=/var/lib/cuzk/params \
    CUZK_AGENT_WORK_DIR=/var/lib/cuzk/work
VOLUME ["/etc/cuzk", "/var/lib/cuzk/params"]
EXPOSE 9464
USER cuzk
WORKDIR /var/lib/cuzk
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD curl -f http://127.0.0.1:9464/healthz || exit 1
ENTRYPOINT ["cuzk"]
CMD ["agent", "--config", "/etc/cuzk/cuzk.cfg"]
