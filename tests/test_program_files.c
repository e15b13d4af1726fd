/*
 * Programs from files: kiln_program_build_file, #include "..." beside the
 * file, in kiln_build_options.include_dirs and in "-I dir" options, nested
 * includes, #pragma once, include cycles, missing includes and files,
 * defines from the array, the cache key covering included files, and
 * compiler messages that point into the right file and line.
 *
 * Every test writes its files into a directory of its own under the
 * scratch directory.
 */
#include "config.h" /* _GNU_SOURCE: POSIX functions under -std=c11 */

#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ELEMENTS 512

/* ---- files -------------------------------------------------------------------- */

/* A directory of files, and the paths handed out in it (each stays valid
 * as long as the workspace). */
typedef struct workspace {
    char dir[4096];
    char paths[24][4400];
    unsigned used;
} workspace;

static void workspace_init(workspace *w, const char *label)
{
    static unsigned counter;
    snprintf(w->dir, sizeof w->dir, "%s/files-%s-%u", test_scratch_dir(),
             label, counter++);
    w->used = 0;
    if (mkdir(w->dir, 0700) != 0 && errno != EEXIST)
        fail_msg("mkdir %s: %s", w->dir, strerror(errno));
}

static void join(const workspace *w, const char *name, char *out, size_t size)
{
    /* (memcpy, not snprintf: `out` may lie in *w, which -Wrestrict would
     * suspect of overlapping w->dir) */
    size_t dir_length = strlen(w->dir), name_length = strlen(name);
    if (dir_length + 1 + name_length >= size)
        fail_msg("path too long: %s/%s", w->dir, name);
    memcpy(out, w->dir, dir_length);
    out[dir_length] = '/';
    memcpy(out + dir_length + 1, name, name_length + 1);
}

/* The absolute path of `name` in the workspace. */
static const char *path_in(workspace *w, const char *name)
{
    if (w->used == sizeof w->paths / sizeof w->paths[0])
        fail_msg("the test asks for more paths than a workspace holds");
    char *path = w->paths[w->used++];
    join(w, name, path, sizeof w->paths[0]);
    return path;
}

static void make_dir(const workspace *w, const char *name)
{
    char path[4400];
    join(w, name, path, sizeof path);
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        fail_msg("mkdir %s: %s", path, strerror(errno));
}

static void put(const workspace *w, const char *name, const char *text)
{
    char path[4400];
    join(w, name, path, sizeof path);
    FILE *file = fopen(path, "w");
    if (file == NULL)
        fail_msg("cannot create %s: %s", path, strerror(errno));
    fputs(text, file);
    if (fclose(file) != 0)
        fail_msg("cannot write %s: %s", path, strerror(errno));
}

/* ---- building and checking --------------------------------------------------------- */

static kiln_program *build_file(kiln_context *context, const char *path,
                                const kiln_build_options *options)
{
    kiln_program *program = NULL;
    kiln_status status =
        kiln_program_build_file(context, path, options, &program);
    if (status != KILN_OK)
        fail_msg("building %s: %s: %s", path, kiln_status_name(status),
                 kiln_last_error());
    return program;
}

/* Every test kernel is `kernel void apply(global float *x)`, computing
 * x = x * scale + offset from constants its headers decide. */
static void check_apply(kiln_context *context, kiln_program *program,
                        float scale, float offset)
{
    float data[ELEMENTS], expected[ELEMENTS];
    test_random_floats(data, ELEMENTS, -8.0f, 8.0f);
    for (int i = 0; i < ELEMENTS; ++i)
        expected[i] = data[i] * scale + offset;
    kiln_kernel *kernel = test_kernel(program, "apply");
    kiln_buffer *buffer = test_buffer_from(context, data, sizeof data);
    kiln_launch_config config = test_config_1d(ELEMENTS, 64);
    TEST_OK(kiln_launch_prepared(kernel, &config, "P", buffer));
    TEST_OK(kiln_buffer_read(buffer, 0, data, sizeof data));
    test_assert_floats_near(data, expected, ELEMENTS, 1e-5);
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_kernel_release(kernel));
}

static void build_file_and_check(kiln_context *context, const char *path,
                                 const kiln_build_options *options,
                                 float scale, float offset)
{
    kiln_program *program = build_file(context, path, options);
    check_apply(context, program, scale, offset);
    TEST_OK(kiln_program_release(program));
}

static const char apply_kernel[] =
    "kernel void apply(global float *x)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    x[i] = x[i] * SCALE + OFFSET;\n"
    "}\n";

/* "#include \"NAME\"\n" + apply_kernel, in `out`. */
static const char *including(const char *directives, char *out, size_t size)
{
    snprintf(out, size, "%s%s", directives, apply_kernel);
    return out;
}

/* True when `log` points at `file` line `line`, in clang's "file:3:" or
 * NVRTC's "file(3):" form. */
static bool mentions_line(const char *log, const char *file, int line)
{
    char colon[512], paren[512];
    snprintf(colon, sizeof colon, "%s:%d:", file, line);
    snprintf(paren, sizeof paren, "%s(%d)", file, line);
    return strstr(log, colon) != NULL || strstr(log, paren) != NULL;
}

/* ---- tests ------------------------------------------------------------------------- */

static void test_include_beside_the_file(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "beside");
    char text[2048];
    put(&w, "header.h",
        "#define SCALE 3.0f\n"
        "float offset_of(void) { return 0.25f; }\n"
        "#define OFFSET offset_of()\n");
    put(&w, "kernel.cl", including("#include \"header.h\"\n", text, sizeof text));
    build_file_and_check(context, path_in(&w, "kernel.cl"), NULL, 3.0f, 0.25f);
    /* Spacing inside the directive is free, as in C. */
    put(&w, "spaced.cl",
        including("  #  include   \"header.h\"\n", text, sizeof text));
    build_file_and_check(context, path_in(&w, "spaced.cl"), NULL, 3.0f, 0.25f);
}

static void test_include_dirs(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "dirs");
    char text[2048];
    make_dir(&w, "src");
    make_dir(&w, "include");
    make_dir(&w, "other");
    put(&w, "include/lib.h", "#define SCALE 5.0f\n#define OFFSET 1.0f\n");
    put(&w, "other/lib.h", "#define SCALE 7.0f\n#define OFFSET 2.0f\n");
    put(&w, "src/kernel.cl", including("#include \"lib.h\"\n", text, sizeof text));
    put(&w, "src/angle.cl", including("#include <lib.h>\n", text, sizeof text));
    const char *kernel = path_in(&w, "src/kernel.cl");

    /* Without a directory the include is not found. */
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build_file(context, kernel, NULL, &program));

    const char *dirs[] = {path_in(&w, "include"), path_in(&w, "other")};
    kiln_build_options options = {.include_dirs = dirs,
                                  .include_dir_count = 2};
    build_file_and_check(context, kernel, &options, 5.0f, 1.0f);
    build_file_and_check(context, path_in(&w, "src/angle.cl"), &options, 5.0f,
                         1.0f);
    /* The directories are searched in order. */
    const char *reversed[] = {dirs[1], dirs[0]};
    options.include_dirs = reversed;
    build_file_and_check(context, kernel, &options, 7.0f, 2.0f);

    /* -I in the options, as one word or two. */
    char option_text[9000];
    snprintf(option_text, sizeof option_text, "-I %s", path_in(&w, "include"));
    kiln_build_options with_option = {.options = option_text};
    build_file_and_check(context, kernel, &with_option, 5.0f, 1.0f);
    snprintf(option_text, sizeof option_text, "-cl-mad-enable -I%s",
             path_in(&w, "other"));
    build_file_and_check(context, kernel, &with_option, 7.0f, 2.0f);

    /* kiln_program_build_with takes the same directories. */
    options.include_dirs = dirs;
    TEST_OK(kiln_program_build_with(
        context, including("#include \"lib.h\"\n", text, sizeof text), 0,
        &options, &program));
    check_apply(context, program, 5.0f, 1.0f);
    TEST_OK(kiln_program_release(program));

    /* A header beside the file comes before the directories. */
    put(&w, "src/lib.h", "#define SCALE 9.0f\n#define OFFSET 3.0f\n");
    build_file_and_check(context, kernel, &options, 9.0f, 3.0f);
    /* ...but not for <...>, which only searches the directories. */
    build_file_and_check(context, path_in(&w, "src/angle.cl"), &options, 5.0f,
                         1.0f);
}

static void test_nested_includes(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "nested");
    char text[2048];
    make_dir(&w, "inc1");
    make_dir(&w, "inc1/sub");
    make_dir(&w, "inc2");
    /* a.h (directory) -> sub/b.h (beside a.h) -> c.h (directory) */
    put(&w, "inc1/a.h", "#include \"sub/b.h\"\n#define SCALE (B_VALUE * 2.0f)\n");
    put(&w, "inc1/sub/b.h", "#include \"c.h\"\n#define B_VALUE (C_VALUE + 1.0f)\n");
    put(&w, "inc2/c.h", "#define C_VALUE 0.5f\n#define OFFSET -4.0f\n");
    put(&w, "kernel.cl", including("#include \"a.h\"\n", text, sizeof text));
    const char *dirs[] = {path_in(&w, "inc1"), path_in(&w, "inc2")};
    kiln_build_options options = {.include_dirs = dirs,
                                  .include_dir_count = 2};
    build_file_and_check(context, path_in(&w, "kernel.cl"), &options, 3.0f,
                         -4.0f);
}

static void test_pragma_once(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "once");
    char text[2048];
    /* A function definition: a second copy would be a redefinition. */
    put(&w, "once.h",
        "#pragma once\n"
        "float scale_of(void) { return 6.0f; }\n"
        "#define SCALE scale_of()\n"
        "#define OFFSET 0.5f\n");
    put(&w, "also.h", "#include \"once.h\"\n");
    put(&w, "kernel.cl",
        including("#include \"once.h\"\n#include \"also.h\"\n"
                  "#include \"once.h\"\n",
                  text, sizeof text));
    build_file_and_check(context, path_in(&w, "kernel.cl"), NULL, 6.0f, 0.5f);

    /* The control: without #pragma once the same includes fail, so the
     * success above is the pragma's doing. */
    put(&w, "twice.h",
        "float scale_of(void) { return 6.0f; }\n"
        "#define SCALE scale_of()\n"
        "#define OFFSET 0.5f\n");
    put(&w, "control.cl",
        including("#include \"twice.h\"\n#include \"twice.h\"\n", text,
                  sizeof text));
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build_file(context, path_in(&w, "control.cl"),
                                       NULL, &program));
    TEST_ERROR_MENTIONS("scale_of");
}

static void test_include_cycle(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "cycle");
    char text[2048];
    put(&w, "a.h", "#include \"b.h\"\n#define SCALE 1.0f\n");
    put(&w, "b.h", "#include \"a.h\"\n#define OFFSET 1.0f\n");
    put(&w, "self.h", "#include \"self.h\"\n");
    put(&w, "kernel.cl", including("#include \"a.h\"\n", text, sizeof text));
    put(&w, "self.cl", including("#include \"self.h\"\n", text, sizeof text));
    static const char *const files[] = {"kernel.cl", "self.cl"};
    for (int f = 0; f < 2; ++f) {
        time_t start = time(NULL);
        kiln_program *program = NULL;
        TEST_FAILS(KILN_ERR_BUILD,
                   kiln_program_build_file(context, path_in(&w, files[f]),
                                           NULL, &program));
        if (strstr(kiln_last_error(), "nested") == NULL &&
            strstr(kiln_last_error(), "cycle") == NULL)
            fail_msg("%s: the error does not say the includes nest too "
                     "deep: %s",
                     files[f], kiln_last_error());
        if (time(NULL) - start > 20)
            fail_msg("%s: an include cycle took %lld s to refuse", files[f],
                     (long long)(time(NULL) - start));
    }
}

static void test_guarded_include_cycle(void **state)
{
    /* Headers that include each other behind include guards are legal C:
     * the preprocessor stops at the guard. */
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "guarded");
    char text[2048];
    put(&w, "a.h",
        "#ifndef A_H\n#define A_H\n#include \"b.h\"\n"
        "#define SCALE 2.0f\n#endif\n");
    put(&w, "b.h",
        "#ifndef B_H\n#define B_H\n#include \"a.h\"\n"
        "#define OFFSET 1.0f\n#endif\n");
    put(&w, "kernel.cl", including("#include \"a.h\"\n", text, sizeof text));
    build_file_and_check(context, path_in(&w, "kernel.cl"), NULL, 2.0f, 1.0f);
}

static void test_missing_include(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "missing");
    char text[2048];
    put(&w, "kernel.cl",
        including("#define SCALE 1.0f\n#define OFFSET 0.0f\n"
                  "#include \"no_such_header.h\"\n",
                  text, sizeof text));
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build_file(context, path_in(&w, "kernel.cl"), NULL,
                                       &program));
    TEST_ERROR_MENTIONS("no_such_header.h");

    /* A missing include that the preprocessor never reaches is fine. */
    put(&w, "skipped.cl",
        including("#define SCALE 2.0f\n#define OFFSET 1.0f\n"
                  "#if 0\n#include \"no_such_header.h\"\n#endif\n"
                  "/*\n#include \"no_such_header.h\"\n*/\n"
                  "// #include \"no_such_header.h\"\n",
                  text, sizeof text));
    build_file_and_check(context, path_in(&w, "skipped.cl"), NULL, 2.0f, 1.0f);
}

static void test_defines(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "defines");
    put(&w, "kernel.cl",
        "#ifndef SCALE\n#define SCALE 1\n#endif\n"
        "#ifdef USE_OFFSET\n#define OFFSET 10.0f\n#else\n#define OFFSET 0.0f\n"
        "#endif\n"
        "kernel void apply(global float *x)\n"
        "{\n"
        "    int i = get_global_id(0);\n"
        "    x[i] = x[i] * SCALE + OFFSET;\n"
        "}\n");
    const char *kernel = path_in(&w, "kernel.cl");
    build_file_and_check(context, kernel, NULL, 1.0f, 0.0f);
    const char *both[] = {"SCALE=3", "USE_OFFSET"};
    kiln_build_options options = {.defines = both, .define_count = 2};
    build_file_and_check(context, kernel, &options, 3.0f, 10.0f);
    options.define_count = 1;
    build_file_and_check(context, kernel, &options, 3.0f, 0.0f);
    const char *only_offset[] = {"USE_OFFSET"};
    options.defines = only_offset;
    build_file_and_check(context, kernel, &options, 1.0f, 10.0f);
    /* Defines and options together. */
    options.options = "-DSCALE=4";
    build_file_and_check(context, kernel, &options, 4.0f, 10.0f);

    /* Defines that cannot travel as one option word are refused. */
    static const char *const refused[] = {
        "SCALE=3 4", "SCALE=\"3\"", "A\\B", "", "=3", "TAB\tX", "NL\nX",
    };
    kiln_program *program = NULL;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        const char *one[] = {refused[i]};
        kiln_build_options bad = {.defines = one, .define_count = 1};
        TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
                   kiln_program_build_file(context, kernel, &bad, &program));
        TEST_ERROR_MENTIONS("define");
    }
    const char *null_define[] = {NULL};
    kiln_build_options bad = {.defines = null_define, .define_count = 1};
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_file(context, kernel, &bad, &program));
    kiln_build_options no_array = {.define_count = 1};
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_file(context, kernel, &no_array, &program));
    kiln_build_options no_dirs = {.include_dir_count = 2};
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_file(context, kernel, &no_dirs, &program));
}

static void test_cache_key_covers_included_files(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "key");
    setenv("KILN_CACHE_DIR", path_in(&w, "cache"), 1);
    char text[2048];
    make_dir(&w, "inc");
    put(&w, "inc/outer.h", "#include \"inner.h\"\n#define SCALE 2.0f\n");
    put(&w, "inc/inner.h", "#define OFFSET 1.0f\n");
    put(&w, "kernel.cl", including("#include \"outer.h\"\n", text, sizeof text));
    const char *kernel = path_in(&w, "kernel.cl");
    const char *dirs[] = {path_in(&w, "inc")};
    kiln_build_options options = {.include_dirs = dirs,
                                  .include_dir_count = 1};
    kiln_program_origin origin;

    kiln_program *program = build_file(context, kernel, &options);
    TEST_OK(kiln_program_get_origin(program, &origin));
    assert_int_equal(origin, KILN_PROGRAM_COMPILED);
    check_apply(context, program, 2.0f, 1.0f);
    TEST_OK(kiln_program_release(program));

    program = build_file(context, kernel, &options);
    TEST_OK(kiln_program_get_origin(program, &origin));
    assert_int_equal(origin, KILN_PROGRAM_FROM_MEMORY_CACHE);
    TEST_OK(kiln_program_release(program));

    /* The header two levels down changes; nothing else does. */
    put(&w, "inc/inner.h", "#define OFFSET -3.0f\n");
    program = build_file(context, kernel, &options);
    TEST_OK(kiln_program_get_origin(program, &origin));
    if (origin != KILN_PROGRAM_COMPILED)
        fail_msg("a changed header gave a cached program (origin %d)",
                 (int)origin);
    check_apply(context, program, 2.0f, -3.0f);
    TEST_OK(kiln_program_release(program));

    /* Back to the first content: the first binary again. */
    put(&w, "inc/inner.h", "#define OFFSET 1.0f\n");
    program = build_file(context, kernel, &options);
    TEST_OK(kiln_program_get_origin(program, &origin));
    assert_int_equal(origin, KILN_PROGRAM_FROM_MEMORY_CACHE);
    check_apply(context, program, 2.0f, 1.0f);
    TEST_OK(kiln_program_release(program));

    /* Headers found through "-I dir" in the options count as well. */
    char option_text[4500];
    snprintf(option_text, sizeof option_text, "-I %s", path_in(&w, "inc"));
    kiln_build_options with_option = {.options = option_text};
    program = build_file(context, kernel, &with_option);
    check_apply(context, program, 2.0f, 1.0f);
    TEST_OK(kiln_program_release(program));
    put(&w, "inc/inner.h", "#define OFFSET 6.0f\n");
    program = build_file(context, kernel, &with_option);
    TEST_OK(kiln_program_get_origin(program, &origin));
    if (origin != KILN_PROGRAM_COMPILED)
        fail_msg("a header changed under -I gave a cached program (origin %d)",
                 (int)origin);
    check_apply(context, program, 2.0f, 6.0f);
    TEST_OK(kiln_program_release(program));
    snprintf(option_text, sizeof option_text, "-I%s", path_in(&w, "inc"));
    program = build_file(context, kernel, &with_option);
    check_apply(context, program, 2.0f, 6.0f);
    TEST_OK(kiln_program_release(program));
    put(&w, "inc/inner.h", "#define OFFSET 7.0f\n");
    program = build_file(context, kernel, &with_option);
    TEST_OK(kiln_program_get_origin(program, &origin));
    if (origin != KILN_PROGRAM_COMPILED)
        fail_msg("a header changed under -Idir gave a cached program "
                 "(origin %d)",
                 (int)origin);
    check_apply(context, program, 2.0f, 7.0f);
    TEST_OK(kiln_program_release(program));

    /* The same file name in another include directory is another source. */
    make_dir(&w, "inc-b");
    put(&w, "inc-b/outer.h", "#define SCALE 8.0f\n#define OFFSET 0.0f\n");
    const char *other_dirs[] = {path_in(&w, "inc-b")};
    kiln_build_options other = {.include_dirs = other_dirs,
                                .include_dir_count = 1};
    program = build_file(context, kernel, &other);
    TEST_OK(kiln_program_get_origin(program, &origin));
    assert_int_equal(origin, KILN_PROGRAM_COMPILED);
    check_apply(context, program, 8.0f, 0.0f);
    TEST_OK(kiln_program_release(program));
}

/* Builds `kernel` (values from val.h), then changes val.h: the next build
 * must compile again and compute with the new values (issue 18.4: each of
 * these sources fooled the old include scanner, so the key missed val.h and
 * a stale binary came back). */
static void check_follows_header(kiln_context *context, workspace *w,
                                 const char *kernel, const char *label)
{
    put(w, "val.h", "#define SCALE 2.0f\n#define OFFSET 1.0f\n");
    kiln_program *program = NULL;
    kiln_status status = kiln_program_build_file(context, kernel, NULL,
                                                 &program);
    if (status != KILN_OK)
        fail_msg("%s: %s: %s", label, kiln_status_name(status),
                 kiln_last_error());
    check_apply(context, program, 2.0f, 1.0f);
    TEST_OK(kiln_program_release(program));
    put(w, "val.h", "#define SCALE 3.0f\n#define OFFSET -5.0f\n");
    TEST_OK(kiln_program_build_file(context, kernel, NULL, &program));
    kiln_program_origin origin;
    TEST_OK(kiln_program_get_origin(program, &origin));
    if (origin != KILN_PROGRAM_COMPILED)
        fail_msg("%s: val.h changed and the program came from the cache "
                 "(origin %d)", label, (int)origin);
    check_apply(context, program, 3.0f, -5.0f);
    TEST_OK(kiln_program_release(program));
}

static void test_includes_the_compiler_would_see(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "tricks");
    setenv("KILN_CACHE_DIR", path_in(&w, "cache"), 1);
    static const struct {
        const char *label;
        const char *source;
    } sources[] = {
        {"#include MACRO", "#define HEADER \"val.h\"\n#include HEADER\n"},
        {"a string holding /*",
         "#define TEXT \"/*\"\n#include \"val.h\"\n#define END \"*/\"\n"},
        {"a comment before #", "/**/#include \"val.h\"\n"},
        {"a line splice in #include", "#inc\\\nlude \"val.h\"\n"},
        {"a CR LF line splice in #include", "#inclu\\\r\nde \"val.h\"\n"},
        {"the digraph %:", "%:include \"val.h\"\n"},
        {"a guard around it",
         "#ifndef NO_VALUES\n#include \"val.h\"\n#endif\n"},
    };
    char text[2048], name[64];
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; ++i) {
        snprintf(name, sizeof name, "kernel%zu.cl", i);
        put(&w, name, including(sources[i].source, text, sizeof text));
        check_follows_header(context, &w, path_in(&w, name),
                             sources[i].label);
    }
}

/* -I "dir" is the directory, quotes removed: the core splits the options
 * once and hands the directory over as one word, so the header is found,
 * inlined and in the key (the core used to look for a directory named
 * with its quotes).  A directory with a space in its name, in each
 * spelling that makes it one word, is the same directory and one key. */
static void test_quoted_include_dir(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "quoted");
    setenv("KILN_CACHE_DIR", path_in(&w, "cache"), 1);
    char text[2048], escaped[4400], header[128];
    make_dir(&w, "my headers");
    put(&w, "elsewhere.cl", including("#include <val.h>\n", text, sizeof text));
    const char *dir = path_in(&w, "my headers");
    size_t n = 0;
    for (const char *p = dir; *p != '\0' && n + 3 < sizeof escaped; ++p) {
        if (*p == ' ')
            escaped[n++] = '\\';
        escaped[n++] = *p;
    }
    escaped[n] = '\0';
    char spellings[4][4600];
    snprintf(spellings[0], sizeof spellings[0], "-I \"%s\"", dir);
    snprintf(spellings[1], sizeof spellings[1], "-I'%s' -DUNUSED", dir);
    snprintf(spellings[2], sizeof spellings[2], "\"-I%s\"", dir);
    snprintf(spellings[3], sizeof spellings[3], "-I %s", escaped);
    const char *kernel = path_in(&w, "elsewhere.cl");
    for (int k = 0; k < 4; ++k) {
        float scale = 2.0f + (float)k, offset = 0.5f * (float)k;
        snprintf(header, sizeof header,
                 "#define SCALE %.1ff\n#define OFFSET %.1ff\n", scale, offset);
        put(&w, "my headers/val.h", header);
        kiln_build_options options = {.options = spellings[k]};
        kiln_program *program = build_file(context, kernel, &options);
        kiln_program_origin origin;
        TEST_OK(kiln_program_get_origin(program, &origin));
        if (origin != KILN_PROGRAM_COMPILED)
            fail_msg("'%s' with a new header was not compiled", spellings[k]);
        check_apply(context, program, scale, offset);
        TEST_OK(kiln_program_release(program));
        if (k == 1)
            continue; /* the same directory but another define */
        /* The first spelling names the same directory: the same key. */
        kiln_build_options first = {.options = spellings[0]};
        program = build_file(context, kernel, &first);
        TEST_OK(kiln_program_get_origin(program, &origin));
        if (origin == KILN_PROGRAM_COMPILED)
            fail_msg("'%s' and '%s' made two keys", spellings[0],
                     spellings[k]);
        check_apply(context, program, scale, offset);
        TEST_OK(kiln_program_release(program));
    }
}

/* A relative file name finds the header beside it in the current
 * directory, and the cache key covers it (18.4: "main.cl" did not). */
static void test_relative_file_name(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "relative");
    setenv("KILN_CACHE_DIR", path_in(&w, "cache"), 1);
    char text[2048], previous[4096];
    put(&w, "main.cl", including("#include \"val.h\"\n", text, sizeof text));
    if (getcwd(previous, sizeof previous) == NULL || chdir(w.dir) != 0)
        fail_msg("cannot change to %s: %s", w.dir, strerror(errno));
    check_follows_header(context, &w, "main.cl", "main.cl");
    if (chdir(previous) != 0)
        fail_msg("cannot change back to %s: %s", previous, strerror(errno));
}

/* 18.5: headers that each include the next one twice behind include
 * guards are read once each (a guarded file whose guard is defined adds
 * nothing), so 40 levels build at once; without the guards the doubling
 * is refused with a message instead of growing for minutes. */
static void test_include_guards_do_not_double(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "doubling");
    enum { LEVELS = 40 };
    char name[64], text[2048];
    /* One kilobyte of definitions per header: what doubles is real text. */
    char filler[1100];
    size_t used = 0;
    for (int i = 0; used + 40 < sizeof filler - 1; ++i)
        used += (size_t)snprintf(filler + used, sizeof filler - used,
                                 "#define FILLER_%d %d\n", i, i);
    for (int guarded = 1; guarded >= 0; --guarded) {
        for (int level = 0; level < LEVELS; ++level) {
            char c = guarded ? 'g' : 'u';
            snprintf(name, sizeof name, "%c%d.h", c, level);
            if (level + 1 == LEVELS)
                snprintf(text, sizeof text,
                         "#define SCALE 4.0f\n#define OFFSET 2.0f\n");
            else if (guarded)
                snprintf(text, sizeof text,
                         "#ifndef G%d_H\n#define G%d_H\n%s"
                         "#include \"%c%d.h\"\n#include \"%c%d.h\"\n#endif\n",
                         level, level, filler, c, level + 1, c, level + 1);
            else
                snprintf(text, sizeof text,
                         "%s#include \"%c%d.h\"\n#include \"%c%d.h\"\n",
                         filler, c, level + 1, c, level + 1);
            put(&w, name, text);
        }
        snprintf(text, sizeof text, "#include \"%c0.h\"\n%s",
                 guarded ? 'g' : 'u', apply_kernel);
        snprintf(name, sizeof name, "%s.cl", guarded ? "guarded" : "unguarded");
        put(&w, name, text);
        time_t start = time(NULL);
        kiln_program *program = NULL;
        kiln_status status =
            kiln_program_build_file(context, path_in(&w, name), NULL, &program);
        if (guarded) {
            if (status != KILN_OK)
                fail_msg("guarded headers: %s: %s", kiln_status_name(status),
                         kiln_last_error());
            check_apply(context, program, 4.0f, 2.0f);
            TEST_OK(kiln_program_release(program));
        } else {
            if (status != KILN_ERR_BUILD)
                fail_msg("headers doubling 40 times: %s (%s), expected "
                         "KILN_ERR_BUILD", kiln_status_name(status),
                         kiln_last_error());
            TEST_ERROR_MENTIONS("MiB");
        }
        if (time(NULL) - start > 20)
            fail_msg("%s headers took %lld s", guarded ? "guarded" : "doubling",
                     (long long)(time(NULL) - start));
    }
}

static void test_missing_and_unreadable_files(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "io");
    kiln_program *program = NULL;
    const char *missing = path_in(&w, "no_such_kernel.cl");
    TEST_FAILS(KILN_ERR_IO, kiln_program_build_file(context, missing, NULL,
                                                    &program));
    TEST_ERROR_MENTIONS("no_such_kernel.cl");
    make_dir(&w, "a_directory.cl");
    TEST_FAILS(KILN_ERR_IO,
               kiln_program_build_file(context, path_in(&w, "a_directory.cl"),
                                       NULL, &program));
    TEST_ERROR_MENTIONS("a_directory.cl");
    put(&w, "empty.cl", "");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_file(context, path_in(&w, "empty.cl"), NULL,
                                       &program));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_file(context, NULL, NULL, &program));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_file(context, missing, NULL, NULL));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_program_build_file(NULL, missing, NULL, &program));
}

static void test_errors_point_into_headers(void **state)
{
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "lines");
    char text[2048];
    put(&w, "good.h", "#define SCALE 1.0f\n#define OFFSET 0.0f\n");
    /* Line 3 of bad.h is broken. */
    put(&w, "bad.h",
        "#define SCALE 1.0f\n"
        "#define OFFSET 0.0f\n"
        "float broken(float x) { return x + undeclared_in_header; }\n");
    put(&w, "kernel.cl", including("#include \"bad.h\"\n", text, sizeof text));
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build_file(context, path_in(&w, "kernel.cl"), NULL,
                                       &program));
    TEST_ERROR_MENTIONS("undeclared_in_header");
    if (!mentions_line(kiln_last_error(), "bad.h", 3))
        fail_msg("the log does not point at bad.h line 3: %s",
                 kiln_last_error());

    /* After an include, lines of the including file count on correctly:
     * the error is on line 5 of main.cl. */
    put(&w, "main.cl",
        "#include \"good.h\"\n"
        "#include \"good.h\"\n"
        "kernel void apply(global float *x)\n"
        "{\n"
        "    x[0] = undeclared_name;\n"
        "}\n");
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build_file(context, path_in(&w, "main.cl"), NULL,
                                       &program));
    TEST_ERROR_MENTIONS("undeclared_name");
    if (!mentions_line(kiln_last_error(), "main.cl", 5))
        fail_msg("the log does not point at main.cl line 5: %s",
                 kiln_last_error());
}

static void test_errors_name_the_file(void **state)
{
    /* No include at all: the compiler still names the user's file (or
     * the source_name given), not a temporary copy. */
    kiln_context *context = test_context(state);
    workspace w;
    workspace_init(&w, "named");
    put(&w, "plain.cl",
        "kernel void apply(global float *x)\n"
        "{\n"
        "    x[0] = missing_identifier;\n"
        "}\n");
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build_file(context, path_in(&w, "plain.cl"), NULL,
                                       &program));
    if (!mentions_line(kiln_last_error(), "plain.cl", 3))
        fail_msg("the log does not point at plain.cl line 3: %s",
                 kiln_last_error());
    kiln_build_options named = {.source_name = "my_named_source.cl"};
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build_with(context,
                                       "kernel void f(global int *x)\n"
                                       "{ x[0] = missing_identifier; }\n",
                                       0, &named, &program));
    if (!mentions_line(kiln_last_error(), "my_named_source.cl", 2))
        fail_msg("the log does not point at my_named_source.cl line 2: %s",
                 kiln_last_error());
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(test_include_beside_the_file),
        KILN_TEST(test_include_dirs),
        KILN_TEST(test_nested_includes),
        KILN_TEST(test_pragma_once),
        KILN_TEST(test_include_cycle),
        KILN_TEST(test_guarded_include_cycle),
        KILN_TEST(test_missing_include),
        KILN_TEST(test_defines),
        KILN_TEST(test_cache_key_covers_included_files),
        KILN_TEST(test_includes_the_compiler_would_see),
        KILN_TEST(test_relative_file_name),
        KILN_TEST(test_quoted_include_dir),
        KILN_TEST(test_include_guards_do_not_double),
        KILN_TEST(test_missing_and_unreadable_files),
        KILN_TEST(test_errors_point_into_headers),
        KILN_TEST(test_errors_name_the_file),
    };
    return kiln_test_main("program files", tests,
                          sizeof tests / sizeof tests[0]);
}
