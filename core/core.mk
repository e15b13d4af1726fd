# libkiln: the core library.  It links neither OpenCL nor CUDA: backends are
# plugins found at run time (core/loader.c).
lib_LTLIBRARIES += libkiln.la
libkiln_la_SOURCES = \
	core/internal.h \
	core/args.c \
	core/buffer.c \
	core/built_program.c \
	core/cache_dir.c \
	core/cache_disk.c \
	core/cache_key.c \
	core/cache_memory.c \
	core/context.c \
	core/device.c \
	core/env.c \
	core/error.c \
	core/event.c \
	core/front_end.c \
	core/guard.c \
	core/handle.c \
	core/hash.c \
	core/host_memory.c \
	core/ipc.c \
	core/kernel.c \
	core/kernel_names.c \
	core/launch.c \
	core/launch_assert.c \
	core/launch_check.c \
	core/launch_stage.c core/launch_bounds.c \
	core/loader.c \
	core/peer.c \
	core/plugin_path.c \
	core/pool.c \
	core/prepared.c \
	core/program.c \
	core/program_build.c \
	core/program_contents.c \
	core/program_description.c \
	core/program_language.c \
	core/program_options.c \
	core/program_variables.c \
	core/saved_program.c \
	core/saved_program.h \
	core/source.c \
	core/stream.c \
	core/strings.c \
	core/trace.c
libkiln_la_CPPFLAGS = $(AM_CPPFLAGS) $(XXHASH_CFLAGS) -I$(top_srcdir)/translate \
	-DKILN_PLUGIN_DIR='"$(plugindir)"'
libkiln_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(KILN_LT_VERSION) \
	-no-undefined -export-symbols-regex '^kiln_'
# The front end's preprocessor inlines #include files (core/source.c).
libkiln_la_LIBADD = translate/libkiln_translate.la $(DL_LIBS) $(XXHASH_LIBS)
