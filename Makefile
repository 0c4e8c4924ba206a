# The two things a newcomer runs. Both install what is missing first.
#   make example        build emb and run it on the shipped example models
#   make test           build emb and run the whole test suite (check-emb)
#   make test-sanitize  the same with ASan and UBSan on emb's C code, CUDA
#                       off, in its own folder, then the bounded fuzz run
#                       (check-emb-fuzz): docs/reliability.md
# BUILD and SANITIZE_BUILD pick the build folders; CMAKE_ARGS passes options
# to CMake.

BUILD ?= build
SANITIZE_BUILD ?= build-asan
CMAKE_ARGS ?=

.PHONY: example test test-sanitize build configure bootstrap

example: configure
	ninja -C $(BUILD) emb-example
	tools/dev/example.sh $(BUILD)

test: build
	ninja -C $(BUILD) check-emb

test-sanitize: bootstrap
	cmake -G Ninja -S . -B $(SANITIZE_BUILD) -DEMB_ENABLE_CUDA=OFF \
	  -DEMB_SANITIZE=ON $(CMAKE_ARGS)
	ninja -C $(SANITIZE_BUILD) check-emb
	ninja -C $(SANITIZE_BUILD) check-emb-fuzz

build: configure
	ninja -C $(BUILD)

configure: bootstrap
	cmake -G Ninja -S . -B $(BUILD) $(CMAKE_ARGS)

bootstrap:
	tools/dev/bootstrap.sh
