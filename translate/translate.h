/*
 * translate.h — Kiln's kernel-language front end: its one public header.
 *
 * The core (core/front_end.c) calls this module once per program build;
 * nothing else in the library does, and no plugin links it.  What it does,
 * in the order a build asks for it:
 *
 *   1. translate_open: preprocesses the program once.  Its #include files
 *      are inlined (through the caller's reader) into one text with #line
 *      markers: the text a cache key covers and a native build compiles.
 *      When the program will be translated or read, every macro is also
 *      expanded, in the same pass, for the steps below.
 *   2. translate_to_target: the program in the target's language (OpenCL C
 *      -> CUDA C++ for NVRTC, or CUDA C -> OpenCL C 1.2), with the build
 *      options that language's compiler takes, the headers the text
 *      includes, and what a launch must add: every kernel's signature as
 *      the user wrote it and the hidden arguments after it.
 *   3. translate_read: only the kernels' signatures, without a translation
 *      (native CUDA C: the driver tells only parameter sizes).
 *
 * Anything that cannot be translated faithfully fails with a message that
 * names the construct and the line (`unsupported` set); a wrong program
 * fails as a compiler would (`unsupported` clear).  The module is plain C
 * with no dependency on a GPU, a vendor library or the plugin ABI, so it is
 * tested and fuzzed on any machine.  The phases and files are described in
 * translate/README.
 */
#ifndef KILN_TRANSLATE_H
#define KILN_TRANSLATE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The two kernel languages (the values of kiln.h's kiln_language). */
typedef enum translate_language {
    TRANSLATE_OPENCL_C = 0,
    TRANSLATE_CUDA_C = 1
} translate_language;

/* ---- build options ------------------------------------------------------ */

/* One -D or -U: -D NAME=VALUE, -D NAME (value "1", as C compilers define
 * it) or -U NAME (value NULL).  A function-like macro's name holds its
 * parameter list: -D'F(x)=x*2' is "F(x)", "x*2". */
typedef struct translate_define {
    const char *name;
    const char *value;
} translate_define;

/* Build options as lists, each in the order given.  NULL arrays with zero
 * counts: none. */
typedef struct translate_options {
    const translate_define *defines;     /* -D and -U                     */
    size_t define_count;
    const char *const *include_dirs;     /* -I                            */
    size_t include_dir_count;
    const char *const *flags;            /* every other word              */
    size_t flag_count;
} translate_options;

/* Lists that own their storage (translate_options_parse and the options a
 * translation hands the target's compiler). */
typedef struct translate_option_lists {
    translate_options options;
    translate_define *defines;
    char **include_dirs;
    char **flags;
    char *storage;      /* the words' text                                */
    char *error;        /* on failure: the message                        */
} translate_option_lists;

/* Splits a build option string into words the way a POSIX shell would
 * without expansions (white space separates words, '...' and "..." group,
 * a backslash escapes the next character; in "..." only \" and \\), and
 * sorts them into lists: -D NAME[=VALUE], -U NAME and -I DIR take their
 * value from the same word or the next; every other word is a flag.
 * This is the only place where option strings are split.  Returns 0; -1
 * on an unterminated quote; -3 on a malformed option (-D without a macro
 * name, -D, -U or -I without a value); -2 when memory runs out.  On -1
 * and -3 out->error says what is wrong ("build options: ...").  NULL
 * `text`: no options.  Always call translate_option_lists_free(out). */
int translate_options_parse(const char *text, translate_option_lists *out);
/* The same for options that are words already (a command line's). */
int translate_options_parse_words(const char *const *words, size_t count,
                                  translate_option_lists *out);
void translate_option_lists_free(translate_option_lists *lists);

/* ---- the program and its target ----------------------------------------- */

/* Finds and reads the file an #include names.  `name` is written as
 * between the quotes (`quoted` 1) or angle brackets (0); `includer` is the
 * path this reader gave the including file, NULL for the program itself.
 * Returns 1 with *path (the file's name in #line markers, messages and
 * include guards), *text and *length; 0 when there is no such file; -1
 * with *error when it exists but cannot be read.  Everything returned is
 * malloc'ed and freed by the caller. */
typedef struct translate_include_reader {
    int (*read)(void *context, const char *name, int quoted,
                const char *includer, char **path, char **text,
                size_t *length, char **error);
    void *context;
} translate_include_reader;

/* ---- files: the one place Kiln reads them (include_files.c) ------------ */

/* What a program file or an #include may hold: far more than any kernel. */
#define TRANSLATE_MAX_FILE_BYTES ((size_t)64 << 20)

/* Reads the regular file `path` whole, at most `limit` bytes, into a
 * malloc'ed NUL-terminated *text.  Returns 0, or -1 with *error
 * (malloc'ed): it cannot be opened or read, is no regular file (a FIFO is
 * refused at once, not waited on; /dev/zero is not read forever), or is
 * larger than `limit`. */
int translate_file_read(const char *path, size_t limit, char **text,
                        size_t *length, char **error);
/* The directory part of `path` ("" for none), malloc'ed; NULL when out of
 * memory. */
char *translate_directory_of(const char *path);

/* The #include search every reader of Kiln uses (the core's and
 * kiln-clc's): quoted names beside the including file (the program's own
 * directory for the program itself; NULL when the program is no file),
 * then `dirs` in order; <names> in `dirs` only; absolute names as they
 * are.  `on_read`, when not NULL, is told of every file read. */
typedef struct translate_include_search {
    const char *const *dirs;
    size_t dir_count;
    const char *program_dir;
    void (*on_read)(void *context, const char *path, const char *includer,
                    const char *text, size_t length);
    void *on_read_context;
} translate_include_search;
/* A translate_include_reader's read over a translate_include_search (its
 * context). */
int translate_include_search_read(void *context, const char *name, int quoted,
                                  const char *includer, char **path,
                                  char **text, size_t *length, char **error);

/* The device a program is built for: what its native compiler accepts and
 * what the translation may use.  Strings are never NULL ("" for none). */
typedef struct translate_target {
    translate_language language;  /* the language the device builds      */
    /* OpenCL: the highest OpenCL C version the device compiles (120 for
     * 1.2, 300 for 3.0), its extensions (CL_DEVICE_EXTENSIONS, separated
     * by spaces), its vendor (CL_DEVICE_VENDOR) and its platform's name
     * (CL_PLATFORM_NAME: "NVIDIA CUDA"). */
    unsigned opencl_c_version;
    const char *extensions;
    const char *vendor;
    const char *platform;
    /* CUDA: the device's compute capability (90 for 9.0) and the version
     * of the compiler that builds the text (NVRTC 12.4: 12040; 0 when not
     * known). */
    unsigned compute_capability;
    unsigned compiler_version;
} translate_target;

/* A program as the user gave it. */
typedef struct translate_input {
    const char *text;
    size_t length;
    const char *name;                  /* "<kiln program>" when NULL      */
    translate_language language;
    const translate_options *options;  /* NULL: none                      */
    /* NULL: #include directives are left for the compiler. */
    const translate_include_reader *reader;
    const translate_target *target;
    /* CUDA C: kernel template instances the host names, as NVRTC's name
     * expressions ("sgemm<64, 8>"): each is instantiated and listed among
     * the kernels under that name.  NULL with 0: none. */
    const char *const *kernel_names;
    size_t kernel_name_count;
} translate_input;

/* What a translation from `language` for `target` makes of the target's
 * facts, in words ("float atomics ptx": CUDA C's float atomicAdd on
 * NVIDIA's OpenCL is the PTX CUDA uses), into out[size] ("" when it uses
 * none).  The same words, the same translation: the core puts them in the
 * cache key of every translated program, so a binary built for one device
 * is never loaded for another whose facts choose differently. */
void translate_target_choices(translate_language language,
                              const translate_target *target, char *out,
                              size_t size);

/* ---- 1. preprocessing, once --------------------------------------------- */

typedef struct translate_unit translate_unit;

/* What went wrong: "file:line: message", its line (0 when none) and
 * whether the program is valid but cannot be translated faithfully. */
typedef struct translate_error {
    char *message;                     /* malloc'ed                       */
    unsigned line;
    int unsupported;
} translate_error;

/* Preprocesses `input` (which must outlive the unit).  A program in the
 * target's language is only expanded: its #include directives are carried
 * out where the reader finds the file, and left for the compiler where it
 * does not or where they sit in a group #if leaves out.  A program to be
 * translated is also macro-expanded, in the same pass, and an #include
 * that cannot be found fails it.  Returns 0, -1 with *error (a cycle, more
 * than 256 MiB of includes, an unreadable file, a malformed directive, a
 * refused construct), or -2 when memory runs out. */
int translate_open(const translate_input *input, translate_unit **unit,
                   translate_error *error);
/* The program with its #include files inlined, between #line markers;
 * the source itself when it includes nothing.  Valid while the unit
 * lives. */
const char *translate_text(const translate_unit *unit, size_t *length);
/* The first #include of a group the preprocessor takes that it left to the
 * compiler (the reader did not find the file, #include_next, #import, a
 * malformed name), as "\"name\" at file:line"; NULL when none.  What the
 * compiler reads for it is not in translate_text.  The reader is also
 * asked for the files that #include lines in groups the preprocessor
 * does not take name (the compiler's own macros may take them), so that
 * a reader that records what it reads covers those too. */
const char *translate_left(const translate_unit *unit);
/* Whether the program will be translated into the target's language. */
int translate_needs_translation(const translate_unit *unit);
void translate_close(translate_unit *unit);

/* ---- 2. the program in the target's language ---------------------------- */

/* Each __local argument of an OpenCL C kernel on CUDA is a slice of the
 * launch's dynamic shared memory, aligned to this (enough for the widest
 * OpenCL type, double16 and long16). */
#define TRANSLATE_LOCAL_ALIGN 128

/* What a launch gives a parameter. */
typedef enum translate_param_kind {
    TRANSLATE_PARAM_BUFFER = 1, /* a pointer to global or constant memory */
    TRANSLATE_PARAM_LOCAL,      /* OpenCL C's __local pointer: a size     */
    TRANSLATE_PARAM_VALUE       /* passed by value                        */
} translate_param_kind;

/* The kind of a value's elements (or a pointer's pointee). */
typedef enum translate_scalar {
    TRANSLATE_SCALAR_UNKNOWN = 0, /* a struct, or a type not seen through */
    TRANSLATE_SCALAR_SIGNED,
    TRANSLATE_SCALAR_UNSIGNED,
    TRANSLATE_SCALAR_FLOAT,
    TRANSLATE_SCALAR_BOOL
} translate_scalar;

typedef enum translate_space {
    TRANSLATE_SPACE_PRIVATE = 0,   /* a value                             */
    TRANSLATE_SPACE_GLOBAL,
    TRANSLATE_SPACE_CONSTANT,
    TRANSLATE_SPACE_LOCAL
} translate_space;

/* A kernel parameter as the user declared it. */
typedef struct translate_param {
    translate_param_kind kind;
    translate_space space;
    translate_scalar scalar;   /* the value's elements, a pointer's pointee */
    unsigned scalar_bytes;     /* 1, 2, 4 or 8; 0 unknown                  */
    unsigned vector_length;    /* 1 for a scalar; 0 unknown                */
    /* Bytes the value takes in the program's language (an OpenCL float3
     * is 16, a CUDA float3 12); 8 for a pointer; 0 when the reader cannot
     * size the type (a struct: the driver knows). */
    size_t size;
    char name[64];             /* "" when unnamed                          */
    char type_name[96];        /* as the language spells it: "float*"     */
} translate_param;

/* An argument the translation added after the user's, which the launch
 * supplies. */
typedef enum translate_hidden_kind {
    /* CUDA C's extern __shared__ on OpenCL: a __local argument of the
     * launch's dynamic local memory. */
    TRANSLATE_HIDDEN_DYNAMIC_LOCAL = 1,
    /* CUDA C's __device__ or __constant__ variable on OpenCL: the buffer
     * that holds variables[variable]. */
    TRANSLATE_HIDDEN_VARIABLE,
    /* OpenCL C's get_work_dim() on CUDA: a uint, the launch's work
     * dimensions. */
    TRANSLATE_HIDDEN_WORK_DIM,
    /* CUDA C's pointer parameter params[variable] on OpenCL: a ulong, the
     * byte offset at which it starts in the buffer passed for it (a buffer
     * view's offset in its base, which is what the argument gets).  These
     * come first among a kernel's hidden arguments. */
    TRANSLATE_HIDDEN_POINTER_OFFSET
} translate_hidden_kind;

typedef struct translate_hidden {
    translate_hidden_kind kind;
    size_t variable;
} translate_hidden;

typedef struct translate_kernel {
    /* As the program names it; a kernel template's instance or a kernel
     * in a namespace as the host names it ("sgemm<64, 8>", "ns::k"),
     * listed once for each spelling the host may use. */
    char name[128];
    /* As the translated program names it: the same, or a name OpenCL C
     * does not reserve (a CUDA kernel named dot). */
    char native_name[160];
    size_t param_count;
    translate_param *params;
    unsigned required_block[3]; /* reqd_work_group_size; 0 0 0 when none   */
    size_t hidden_count;        /* after the params, in this order         */
    translate_hidden *hidden;
    /* A kernel the translation refuses while it translates the program's
     * others: why ("file:line: cannot translate '...': why", malloc'ed);
     * it has no parameters, and its native name is its name.  NULL for
     * the others. */
    char *refusal;
} translate_kernel;

/* A CUDA C __device__ or __constant__ variable translated to OpenCL C: a
 * buffer of the program's.  Its size comes from the translated program's
 * own kernel TRANSLATE_KERNEL_VARIABLE_SIZES (one work-item, one ulong
 * buffer: each variable's size in bytes, in order); the variables with an
 * initializer get their values from TRANSLATE_KERNEL_VARIABLE_INIT (their
 * buffers, in order); the others start zero-filled, as CUDA's do.  These
 * two kernels are not the user's and are not listed. */
typedef struct translate_variable {
    char name[128];
    int is_constant;           /* __constant__, else __device__            */
    int has_initializer;
} translate_variable;

#define TRANSLATE_KERNEL_VARIABLE_SIZES "__kiln_variable_sizes"
#define TRANSLATE_KERNEL_VARIABLE_INIT "__kiln_variable_init"

/* CUDA C's assert on OpenCL: a program whose device code asserts (and does
 * not define NDEBUG) has this __device__ variable of TRANSLATE_ASSERT_BYTES
 * among its variables, passed to the kernels that may assert.  The first
 * thread whose assert fails records in it: 32-bit words 0 (nonzero:
 * failed), 1-3 its block, 4-6 its thread, and from byte 32 the site
 * ("file:line: condition"), NUL-terminated.  The launch reads it
 * (core/launch_assert.c), as CUDA reports cudaErrorAssert. */
#define TRANSLATE_ASSERT_VARIABLE "__kiln_assert"
#define TRANSLATE_ASSERT_BYTES 256

/* A header the text #includes by name, given to the compiler beside it. */
typedef struct translate_header {
    const char *name;
    const char *text;
    size_t length;
} translate_header;

typedef struct translate_program {
    translate_language language;       /* the target's                     */
    char *text;                        /* NUL-terminated                   */
    size_t length;
    /* The options the target's compiler takes, translated from the
     * user's (OpenCL's -cl-fast-relaxed-math is NVRTC's --use_fast_math). */
    translate_option_lists options;
    size_t header_count;
    translate_header *headers;
    /* When the text does not compile with `headers` (they hold the parts
     * of a prelude the program seems to use), the same with these (the
     * whole prelude), so that a misjudged selection costs a second
     * compile, never a failed build; NULL when there is no such choice. */
    translate_header *whole_headers;
    size_t kernel_count;
    translate_kernel *kernels;
    size_t variable_count;
    translate_variable *variables;
    /* OpenCL C on CUDA: each __local parameter is passed as a uint, the
     * byte offset of its slice of the launch's dynamic shared memory (the
     * slices in parameter order, each TRANSLATE_LOCAL_ALIGN-aligned); the
     * dynamic shared memory is the end of the last slice. */
    int local_params_are_offsets;
    int uses_double;
    int uses_printf;
    char *storage;                     /* headers' text                    */
} translate_program;

/* Translates the unit into its target's language.  Returns 0, -1 with
 * *error, -2 when memory runs out.  Always call translate_program_free. */
int translate_to_target(translate_unit *unit, translate_program *out,
                        translate_error *error);

/* ---- 3. the signatures alone --------------------------------------------- */

/* The kernels of a program in its target's own language as the user
 * declared them (kernels and params only), without translating it: what
 * a driver that tells only parameter sizes cannot.  Returns 0, -1 with
 * *error (constructs the reader cannot follow: templates, classes), -2
 * when memory runs out. */
int translate_read(translate_unit *unit, translate_program *out,
                   translate_error *error);

/* The options of a program built in its own language, as its compiler
 * takes them: 1 with *out holding them (NVRTC takes no -cl-* option: those
 * with a meaning become NVRTC's, the others go; CUDA C with #pragma OPENCL
 * FP_CONTRACT OFF, which NVRTC ignores, gets --fmad=false); 0 when the compiler takes
 * the user's options as they are (OpenCL's); -2 when memory runs out.
 * Call translate_option_lists_free(out) after either. */
int translate_native_options(const translate_input *input,
                             translate_option_lists *out);

/* A compiler's message about a translation in the user's names: the
 * translation renames an OpenCL C identifier that is a CUDA keyword
 * (threadIdx -> kl_kw_threadIdx) and a __local pointer parameter p to its
 * offset (kl_local_offset_p).  Malloc'ed; NULL when memory runs out. */
char *translate_user_names(const char *text);

void translate_program_free(translate_program *program);
void translate_error_free(translate_error *error);

/* ---- the checked mode's instrumented accesses (bounds_check.c) ----------- */

/* KILN_CHECK=bounds on an OpenCL device: the OpenCL C `text` (a program
 * compiled natively or a translation's output) with every kernel given a
 * last parameter `__global uint *TRANSLATE_BOUNDS_REPORT_PARAM` and each
 * access through a buffer parameter (p[i], *(p + i), *p, also through a
 * local pointer made from one and never changed) checked against the
 * range the launch writes into that buffer: from word
 * TRANSLATE_BOUNDS_RANGES_WORD, four uint words a parameter position (the
 * range's first byte relative to the pointer the kernel gets, and its
 * length in bytes, each low word first).  The first access outside its
 * range sets word 0 to 1 and records the position (word 1), 1 for a
 * write (word 2), the byte offset from the range's start (words 3-4,
 * signed, low word first) and the access's bytes (word 5).  Every access
 * outside its range is redirected: through a global pointer to the
 * report's scratch bytes [64, 1088), through a constant one to the
 * range's first element, so that it neither faults nor changes memory
 * that is not the kernel's.
 * Returns 0 with *out (malloc'ed, NUL-terminated); 1 when the text's
 * brackets do not balance (the compiler will say why: compile it as it
 * is); -2 when memory runs out. */
#define TRANSLATE_BOUNDS_REPORT_PARAM "__kiln_bounds_report"
#define TRANSLATE_BOUNDS_RANGES_WORD 272
#define TRANSLATE_BOUNDS_REPORT_WORDS(params) \
    (TRANSLATE_BOUNDS_RANGES_WORD + 4 * (params))
int translate_bounds_instrument(const char *text, size_t length, char **out,
                                size_t *out_length);

/* ---- the translator's identity and its preludes -------------------------- */

/* A digest (32 hex digits) of every file that decides what a translation
 * produces: the front end's sources, the preludes and their build rules,
 * computed by the build.  The core puts it in the cache key of every
 * program translated or read, so a binary cached by another translator is
 * never loaded. */
const char *translate_digest(void);
/* The files that digest covers, relative to the source tree, one a line. */
const char *translate_digest_files(void);

/* prelude_cuda.cuh: what OpenCL C translated to CUDA C++ needs (OpenCL's
 * built-ins, vectors, atomics), included by the translation as the header
 * TRANSLATE_PRELUDE_CUDA_HEADER. */
const char *translate_prelude_cuda(void);
#define TRANSLATE_PRELUDE_CUDA_HEADER "kiln_cl_prelude.h"
/* prelude_opencl.cl: what CUDA C translated to OpenCL C needs (threadIdx,
 * CUDA's math and atomics and vector layouts), at the start of every
 * translation's text. */
const char *translate_prelude_opencl(void);

/* Whether `word` occurs in text[0, length): memchr on the character at
 * word[anchor], chosen as the one the texts searched spell least, then a
 * compare of the whole word (a quick "can this source contain X" before a
 * costlier scan, on paths every build takes). */
int translate_text_spells(const char *text, size_t length, const char *word,
                          size_t anchor);

#ifdef __cplusplus
}
#endif

#endif /* KILN_TRANSLATE_H */
