// Placeholder so the target builds; replaced by the real benchmark.
print("symbolicate-bench")
