import os
import sys

# examples/python (the custom_op example) for test_torch_cuda.py.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
