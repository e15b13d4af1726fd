# The reference manual: section-3 man pages made at build time from the
# public headers, whose comments are the documentation (docs/man/header-to-man).
# `man kiln` shows kiln.h, `man kiln_array` kiln_array.h, and every function
# has a page of its name that opens its header's page.
EXTRA_DIST += docs/man/header-to-man
KILN_REFERENCE_INPUTS = $(top_srcdir)/include/kiln.h $(top_srcdir)/include/kiln_array.h

all-local: docs/man/man3.stamp
docs/man/man3.stamp: $(KILN_REFERENCE_INPUTS) $(top_srcdir)/docs/man/header-to-man
	$(AM_V_GEN)rm -rf docs/man/man3 && $(MKDIR_P) docs/man/man3 && \
	$(SHELL) $(top_srcdir)/docs/man/header-to-man $(top_srcdir)/include/kiln.h \
	    kiln $(PACKAGE_VERSION) docs/man/man3 && \
	$(SHELL) $(top_srcdir)/docs/man/header-to-man $(top_srcdir)/include/kiln_array.h \
	    kiln_array $(PACKAGE_VERSION) docs/man/man3 && \
	touch $@

install-data-local: install-man3-pages
install-man3-pages: docs/man/man3.stamp
	$(MKDIR_P) '$(DESTDIR)$(mandir)/man3'
	for page in docs/man/man3/*.3; do \
	    $(INSTALL_DATA) "$$page" '$(DESTDIR)$(mandir)/man3' || exit 1; \
	done

uninstall-local: uninstall-man3-pages
uninstall-man3-pages:
	for page in docs/man/man3/*.3; do \
	    rm -f '$(DESTDIR)$(mandir)/man3/'"$${page##*/}"; \
	done

clean-man:
	-rm -rf docs/man/man3 docs/man/man3.stamp

# A TAP check of the pages: every declared function has one, it renders.
TESTS += tests/man-pages-check
EXTRA_DIST += tests/man-pages-check
