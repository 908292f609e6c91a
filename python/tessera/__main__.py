"""python3 -m tessera script.py [args...]: run an unchanged Triton program
on Tessera (drop-in mode, see _dropin.py). `python3 -m tessera -m module
[args...]` runs a module the same way."""

import runpy
import sys

from . import install_as_triton

USAGE = "usage: python3 -m tessera script.py [args...]  |  python3 -m tessera -m module [args...]"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    install_as_triton()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    import os
    if not os.path.isfile(argv[0]):
        # As CPython says it, without a traceback.
        print("python3 -m tessera: can't open file %r: [Errno 2] No such file or directory" % os.path.abspath(argv[0]),
              file=sys.stderr)
        return 2
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
