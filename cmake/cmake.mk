# The CMake package: find_package(Kiln) gives the imported targets
# Kiln::kiln and Kiln::kiln-array (cmake/KilnConfig.cmake.in says how).
# Made here rather than by configure: the installation directories are
# only final at make time (make prefix=... install), and the files find
# the tree relative to their own place, so a DESTDIR install works too.
cmakedir = $(libdir)/cmake/Kiln
cmake_DATA = cmake/KilnConfig.cmake cmake/KilnConfigVersion.cmake
EXTRA_DIST += cmake/KilnConfig.cmake.in cmake/KilnConfigVersion.cmake.in
CLEANFILES += $(cmake_DATA)

# A directory relative to the prefix when it lies below it, else as it is.
kiln_cmake_subst = \
	prefix='$(prefix)'; cmakedir='$(cmakedir)'; \
	below() { case $$1 in "$$prefix"/*) echo "$${1\#"$$prefix"/}" ;; *) echo "$$1" ;; esac; }; \
	up=$$(below "$$cmakedir" | $(SED) -e 's,[^/][^/]*,..,g'); \
	case $$up in /*) up=/ ;; esac; \
	$(SED) -e 's,[@]PACKAGE_VERSION[@],$(PACKAGE_VERSION),g' \
	    -e 's,[@]KILN_VERSION_MAJOR[@],$(KILN_VERSION_MAJOR),g' \
	    -e 's,[@]SIZEOF_VOID_P[@],$(SIZEOF_VOID_P),g' \
	    -e "s,[@]KILN_CMAKE_UP[@],$$up,g" \
	    -e "s,[@]KILN_CMAKE_LIBDIR[@],$$(below '$(libdir)'),g" \
	    -e "s,[@]KILN_CMAKE_INCLUDEDIR[@],$$(below '$(includedir)'),g"

cmake/KilnConfig.cmake: $(srcdir)/cmake/KilnConfig.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) cmake && $(kiln_cmake_subst) \
	    $(srcdir)/cmake/KilnConfig.cmake.in > $@.tmp && mv $@.tmp $@
cmake/KilnConfigVersion.cmake: $(srcdir)/cmake/KilnConfigVersion.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) cmake && $(kiln_cmake_subst) \
	    $(srcdir)/cmake/KilnConfigVersion.cmake.in > $@.tmp && mv $@.tmp $@
