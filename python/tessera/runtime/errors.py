"""Triton's runtime errors. Tessera reports its own failures as
tessera.TesseraError; these exist for code that names Triton's."""
from .._native import load as _load  # noqa: F401
from .. import _C


class OutOfResources(_C.TesseraError):
    def __init__(self, required=0, limit=0, name="shared memory"):
        self.required, self.limit, self.name = required, limit, name
        super().__init__("out of resource: %s, Required: %s, Hardware limit: %s" % (name, required, limit))


class InterpreterError(_C.TesseraError):
    pass


class PTXASError(_C.TesseraError):
    pass
