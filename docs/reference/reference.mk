# The reference manual, made from the public headers' comments: Doxygen
# (docs/reference/Doxyfile.in) writes the HTML reference and an XML
# description of every declaration, and docs/reference/xml-to-man turns the
# XML into a section-3 man page per function, macro and type plus kiln(3)
# and kiln_array(3), which list everything by topic.  The tools' pages
# (section 1) are written by hand in docs/man/.  Built when configure finds
# Doxygen and Python 3; with --enable-werror a header comment Doxygen warns
# about (an undocumented public function) fails the build.
EXTRA_DIST += docs/reference/Doxyfile.in docs/reference/mainpage.md \
	docs/reference/xml-to-man docs/man/kiln-info.1.in \
	docs/man/kiln-clc.1.in docs/man/kiln-compare.1.in

# Section 1, for the three tools.
man1_MANS = docs/man/kiln-info.1 docs/man/kiln-clc.1 docs/man/kiln-compare.1
CLEANFILES += $(man1_MANS)
docs/man/%.1: $(srcdir)/docs/man/%.1.in Makefile
	$(AM_V_GEN)$(MKDIR_P) docs/man && \
	$(SED) -e 's,[@]PACKAGE_VERSION[@],$(PACKAGE_VERSION),g' $< > $@.tmp && \
	mv $@.tmp $@

if HAVE_REFERENCE
KILN_REFERENCE_INPUTS = $(top_srcdir)/include/kiln.h \
	$(top_srcdir)/include/kiln_array.h \
	$(top_srcdir)/docs/reference/mainpage.md \
	$(top_srcdir)/docs/reference/Doxyfile.in \
	$(top_srcdir)/docs/reference/xml-to-man

all-local: docs/reference/reference.stamp
docs/reference/reference.stamp: $(KILN_REFERENCE_INPUTS)
	$(AM_V_GEN)rm -rf docs/reference/html docs/reference/xml \
	    docs/reference/man3 && $(MKDIR_P) docs/reference && \
	$(SED) -e 's,[@]PACKAGE_VERSION[@],$(PACKAGE_VERSION),g' \
	    -e 's,[@]top_srcdir[@],$(abs_top_srcdir),g' \
	    -e 's,[@]KILN_REFERENCE_OUTPUT[@],$(abs_top_builddir)/docs/reference,g' \
	    -e 's,[@]KILN_DOXYGEN_WARN_AS_ERROR[@],$(KILN_DOXYGEN_WARN_AS_ERROR),g' \
	    $(top_srcdir)/docs/reference/Doxyfile.in > docs/reference/Doxyfile && \
	$(DOXYGEN) docs/reference/Doxyfile && \
	if test -s docs/reference/warnings.log; then \
	    cat docs/reference/warnings.log >&2; fi && \
	$(PYTHON3) $(top_srcdir)/docs/reference/xml-to-man docs/reference/xml \
	    docs/reference/man3 $(PACKAGE_VERSION) >/dev/null && \
	touch $@

# Installed: the pages in section 3, the HTML in $(docdir)/html.
install-reference: docs/reference/reference.stamp
	$(MKDIR_P) '$(DESTDIR)$(mandir)/man3' '$(DESTDIR)$(docdir)/html'
	$(INSTALL_DATA) docs/reference/man3/*.3 '$(DESTDIR)$(mandir)/man3'
	$(INSTALL_DATA) docs/reference/html/* '$(DESTDIR)$(docdir)/html'
uninstall-reference:
	for page in docs/reference/man3/*.3; do \
	    rm -f '$(DESTDIR)$(mandir)/man3/'"$${page##*/}"; \
	done
	rm -rf '$(DESTDIR)$(docdir)/html'
else
install-reference:
uninstall-reference:
endif
install-data-local: install-reference
uninstall-local: uninstall-reference
.PHONY: install-reference uninstall-reference clean-reference

clean-reference:
	-rm -rf docs/reference/html docs/reference/xml docs/reference/man3 \
	    docs/reference/reference.stamp docs/reference/Doxyfile \
	    docs/reference/warnings.log

# A TAP check of the pages in the build tree: one per public function,
# macro and type, each its own, each clean under man --warnings.
TESTS += tests/man-pages-check
EXTRA_DIST += tests/man-pages-check

# EXTRA_DIST carries docs/ whole: an in-tree build's outputs stay out of
# the tarball.
dist-hook: dist-reference-outputs
dist-reference-outputs:
	rm -rf $(distdir)/docs/reference/html $(distdir)/docs/reference/xml \
	    $(distdir)/docs/reference/man3 $(distdir)/docs/reference/Doxyfile \
	    $(distdir)/docs/reference/reference.stamp \
	    $(distdir)/docs/reference/warnings.log $(distdir)/docs/man/*.1
.PHONY: dist-reference-outputs
