"""One reader per upstream controller; importing this package registers them all (see ``registry``)."""
