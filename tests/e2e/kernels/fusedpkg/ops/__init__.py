from . import elementwise, norm
