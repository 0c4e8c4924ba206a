# The two things a newcomer runs. Both install what is missing first.
#   make example   build emb and run it on the shipped example models
#   make test      build emb and run the whole test suite (check-emb)
# BUILD picks the build folder; CMAKE_ARGS passes options to CMake.

BUILD ?= build
CMAKE_ARGS ?=

.PHONY: example test build configure bootstrap

example: build
	tools/dev/example.sh $(BUILD)

test: build
	ninja -C $(BUILD) check-emb

build: configure
	ninja -C $(BUILD)

configure: bootstrap
	cmake -G Ninja -S . -B $(BUILD) $(CMAKE_ARGS)

bootstrap:
	tools/dev/bootstrap.sh
