"""The gang contract: every workload kind read once into one record of what its controllers will do.

:mod:`.types` holds the record; :mod:`.registry` maps ``(group, kind)`` to the reader of the
upstream controller that owns the kind; ``readers/`` holds one module per upstream controller,
each citing the file, function and tag it follows. Called by the rules (invariants over the
record), ``gpufleet predict`` and the sandbox's outcome classifier.
"""
