"""One module per benchmarked operator."""
