"""nbval compares every stream a cell writes, stderr included. Known noise is silenced here,
once, instead of ignoring whole cells:

- matplotlib prints "Matplotlib is building the font cache" the first time it is imported on a
  fresh machine; building the cache now, in the pytest process, keeps it out of the notebooks.
"""

import matplotlib.font_manager  # noqa: F401  (builds the font cache on import)
