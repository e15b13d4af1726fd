# kiln-info: backends, why any failed to load, devices and the cache.
bin_PROGRAMS += tools/kiln-info
tools_kiln_info_SOURCES = tools/kiln-info.c
tools_kiln_info_LDADD = libkiln.la
