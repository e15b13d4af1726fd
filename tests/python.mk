# The Python package (python/): tests/python-check builds kiln._kiln
# against this build tree, runs the package's tests and PyCUDA's own tests
# (fetched by pip at test time, never kept in the repository) through
# kiln.pycuda.alias, as TAP.
TESTS += tests/python-check
EXTRA_DIST += tests/python-check tests/python/check.py \
	tests/python/pycuda-tests.txt tests/python/pycuda-expected.txt python

# The package's sources go into the tarball, not what building it in place
# leaves beside them.
dist-hook: dist-python
dist-python:
	-rm -rf $(distdir)/python/build $(distdir)/python/*.egg-info \
	  $(distdir)/python/dist
	-find $(distdir)/python -name __pycache__ -prune -exec rm -rf {} +
.PHONY: dist-python

clean-python:
	-rm -rf python/build python/pycuda python/own-tests.xml \
	  python/pycuda-tests.xml
.PHONY: clean-python
EXTRA_DIST += examples/doublify.py
