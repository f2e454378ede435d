"""The backends other than torch: llama.cpp (its model :mod:`.llama_cpp`, its engine :mod:`.llama_engine`, loading
:mod:`.loading`; its bench is :mod:`grounded_rag.llama_bench`). Which backend a model runs on, and what the torch
engine hands a llama.cpp model to, is :mod:`grounded_rag.backend_choice`: it sits below the engine, which this
package builds on."""
