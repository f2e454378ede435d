# Read by llama.cpp's CMake project when `make setup` builds llama-cpp-python (CMAKE_PROJECT_llama.cpp_INCLUDE).
# llama-cpp-python turns on llama.cpp's `common` library, which its Python bindings never load (they bind libllama
# and ggml); it is most of the build's compile time, so setup leaves it out.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp's common library: not used by llama-cpp-python's bindings" FORCE)
