/*
 * Program (a built source: CUDA C or OpenCL C) and Kernel (one of its
 * entry points) with the launches: Kernel.launch, PyCUDA's call with
 * block=/grid=/shared=/stream=/time_kernel=, and prepare/prepared_call.
 */
#include "kiln_python.h"

#include <string.h>

static PyTypeObject *program_type;
static PyTypeObject *kernel_type;

typedef struct {
    PyObject_HEAD
    kiln_program *program;
    PyObject *context;
} kp_program;

typedef struct {
    PyObject_HEAD
    kiln_kernel *kernel;
    PyObject *program;
    kp_type *params;         /* the type each parameter takes            */
    size_t param_count;
    kp_type *prepared;       /* prepare()'s types, or NULL               */
    size_t prepared_count;
} kp_kernel;

/* ---- Program ----------------------------------------------------------------- */

/* A list of str into a NULL-terminated C array (pointers into the str
 * objects, which `keep` holds). */
static int string_list(PyObject *object, const char ***strings, size_t *count,
                       PyObject **keep, const char *what)
{
    *strings = NULL;
    *count = 0;
    *keep = NULL;
    if (object == NULL || object == Py_None)
        return 0;
    PyObject *sequence = PySequence_Fast(object, what);
    if (sequence == NULL)
        return -1;
    Py_ssize_t length = PySequence_Size(sequence);
    const char **result = PyMem_Calloc((size_t)length + 1, sizeof *result);
    if (result == NULL) {
        Py_DECREF(sequence);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < length; ++i) {
        PyObject *item = PySequence_GetItem(sequence, i);
        if (item == NULL) {
            PyMem_Free(result);
            Py_DECREF(sequence);
            return -1;
        }
        result[i] = PyUnicode_AsUTF8AndSize(item, NULL);
        Py_DECREF(item); /* the sequence keeps it */
        if (result[i] == NULL) {
            PyMem_Free(result);
            Py_DECREF(sequence);
            return -1;
        }
    }
    *strings = result;
    *count = (size_t)length;
    *keep = sequence;
    return 0;
}

static PyObject *program_new(PyTypeObject *type, PyObject *args,
                             PyObject *kwargs)
{
    static char *names[] = {"context",      "source", "options", "language",
                            "defines",      "include_dirs", "name",
                            "kernel_names", NULL};
    PyObject *context_object = NULL, *defines_object = NULL,
             *includes_object = NULL, *kernel_names_object = NULL;
    const char *source = NULL, *options = NULL, *language = NULL,
               *name = NULL;
    Py_ssize_t length = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os#|zzOOzO", names,
                                     &context_object, &source, &length,
                                     &options, &language, &defines_object,
                                     &includes_object, &name,
                                     &kernel_names_object))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    if (context == NULL)
        return NULL;
    kiln_build_options build = {.struct_size = sizeof build};
    if (language == NULL) {
        /* kiln_program_build's detection: __global__ and no __kernel */
        build.language = strstr(source, "__global__") != NULL &&
                                 strstr(source, "__kernel") == NULL
                             ? KILN_LANGUAGE_CUDA_C
                             : KILN_LANGUAGE_OPENCL_C;
    } else if (strcmp(language, "cuda") == 0) {
        build.language = KILN_LANGUAGE_CUDA_C;
    } else if (strcmp(language, "opencl") == 0) {
        build.language = KILN_LANGUAGE_OPENCL_C;
    } else {
        PyErr_Format(PyExc_ValueError,
                     "language must be 'cuda', 'opencl' or None, not '%s'",
                     language);
        return NULL;
    }
    build.options = options;
    build.source_name = name;
    PyObject *keep_defines = NULL, *keep_includes = NULL;
    const char **defines = NULL, **includes = NULL;
    if (string_list(defines_object, &defines, &build.define_count,
                    &keep_defines, "defines must be a list of str") < 0)
        return NULL;
    if (string_list(includes_object, &includes, &build.include_dir_count,
                    &keep_includes, "include_dirs must be a list of str") < 0) {
        PyMem_Free(defines);
        Py_XDECREF(keep_defines);
        return NULL;
    }
    PyObject *keep_kernel_names = NULL;
    const char **kernel_names = NULL;
    if (string_list(kernel_names_object, &kernel_names,
                    &build.kernel_name_count, &keep_kernel_names,
                    "kernel_names must be a list of str") < 0) {
        PyMem_Free(defines);
        PyMem_Free(includes);
        Py_XDECREF(keep_defines);
        Py_XDECREF(keep_includes);
        return NULL;
    }
    build.defines = defines;
    build.include_dirs = includes;
    build.kernel_names = kernel_names;
    kiln_program *program = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_program_build_with(context->context, source, (size_t)length,
                                     &build, &program);
    Py_END_ALLOW_THREADS
    PyMem_Free(defines);
    PyMem_Free(includes);
    PyMem_Free(kernel_names);
    Py_XDECREF(keep_defines);
    Py_XDECREF(keep_includes);
    Py_XDECREF(keep_kernel_names);
    if (status != KILN_OK)
        return kp_raise(status);
    kp_program *self = (kp_program *)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        kiln_program_release(program);
        return NULL;
    }
    self->program = program;
    Py_INCREF(context_object);
    self->context = context_object;
    return (PyObject *)self;
}

static void program_dealloc(PyObject *object)
{
    kp_program *self = (kp_program *)object;
    if (self->program != NULL)
        kiln_program_release(self->program);
    Py_XDECREF(self->context);
    kp_free(object);
}

static PyObject *program_kernel_names(PyObject *object, void *closure)
{
    (void)closure;
    kiln_program *program = ((kp_program *)object)->program;
    size_t count = 0;
    if (kp_check(kiln_program_get_kernel_count(program, &count)) < 0)
        return NULL;
    PyObject *list = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; list != NULL && i < count; ++i) {
        const char *name = NULL;
        if (kp_check(kiln_program_get_kernel_name(program, i, &name)) < 0) {
            Py_DECREF(list);
            return NULL;
        }
        PyObject *text = PyUnicode_FromString(name);
        if (text == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SetItem(list, (Py_ssize_t)i, text);
    }
    return list;
}

static PyObject *program_build_log(PyObject *object, void *closure)
{
    (void)closure;
    const char *log = "";
    if (kp_check(kiln_program_get_build_log(((kp_program *)object)->program,
                                            &log)) < 0)
        return NULL;
    return PyUnicode_FromString(log);
}

static PyObject *program_origin(PyObject *object, void *closure)
{
    (void)closure;
    kiln_program_origin origin = KILN_PROGRAM_COMPILED;
    if (kp_check(kiln_program_get_origin(((kp_program *)object)->program,
                                         &origin)) < 0)
        return NULL;
    static const char *names[] = {"compiled", "memory cache", "disk cache"};
    return PyUnicode_FromString(names[origin <= 2 ? origin : 0]);
}

static PyObject *program_context(PyObject *object, void *closure)
{
    (void)closure;
    PyObject *context = ((kp_program *)object)->context;
    Py_INCREF(context);
    return context;
}

static PyObject *program_get_global(PyObject *object, PyObject *arg)
{
    const char *name = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (name == NULL)
        return NULL;
    kp_program *self = (kp_program *)object;
    kiln_buffer *buffer = NULL;
    if (kp_check(kiln_program_get_global(self->program, name, &buffer)) < 0)
        return NULL;
    return kp_buffer_wrap(self->context, buffer, NULL);
}

static PyObject *program_kernel(PyObject *object, PyObject *arg)
{
    return PyObject_CallFunctionObjArgs((PyObject *)kernel_type, object, arg,
                                        NULL);
}

static PyMethodDef program_methods[] = {
    {"get_global", program_get_global, METH_O,
     "get_global(name) -> Buffer: a __device__ or __constant__ variable of a "
     "CUDA C program as a buffer (PyCUDA's module.get_global)."},
    {"kernel", program_kernel, METH_O,
     "kernel(name) -> Kernel: the program's kernel of that name."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef program_getset[] = {
    {"kernel_names", program_kernel_names, NULL,
     "The names of the program's kernels.", NULL},
    {"build_log", program_build_log, NULL,
     "The compiler's warnings of a successful build ('' if none).", NULL},
    {"origin", program_origin, NULL,
     "'compiled', 'memory cache' or 'disk cache'.", NULL},
    {"context", program_context, NULL, "The program's Context.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot program_slots[] = {
    {Py_tp_doc,
     "Program(context, source, options=None, language=None, defines=None, "
     "include_dirs=None, name=None, kernel_names=None): builds CUDA C or "
     "OpenCL C source (language 'cuda' or 'opencl'; None: CUDA C when the "
     "source has __global__ and no __kernel).  CUDA C runs natively on "
     "CUDA and translated on OpenCL devices; kernel_names lists kernel "
     "template instances to build ('sgemm<64, 8>', as NVRTC's name "
     "expressions).  Binaries are cached in memory and on disk; a failed "
     "build raises BuildError with the compiler's log."},
    {Py_tp_new, program_new},
    {Py_tp_dealloc, program_dealloc},
    {Py_tp_methods, program_methods},
    {Py_tp_getset, program_getset},
    {0, NULL},
};

static PyType_Spec program_spec = {
    "kiln._kiln.Program", sizeof(kp_program), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, program_slots,
};

/* ---- Kernel ------------------------------------------------------------------ */

/* The type a parameter takes, from its reflected C type. */
static kp_type param_type(const kiln_param_info *info)
{
    switch (info->kind) {
    case KILN_PARAM_BUFFER:
        return (kp_type){'P', 0};
    case KILN_PARAM_LOCAL:
        return (kp_type){'S', 0};
    case KILN_PARAM_POINTER_OR_VALUE:
        return (kp_type){'A', info->size};
    default:
        break;
    }
    static const struct {
        const char *name;
        char code;
    } names[] = {
        {"float", 'f'},          {"double", 'd'},
        {"int", 'i'},            {"unsigned int", 'I'},
        {"unsigned", 'I'},       {"uint", 'I'},
        {"int32_t", 'i'},        {"uint32_t", 'I'},
        {"long", 'l'},           {"long long", 'l'},
        {"long int", 'l'},       {"ulong", 'L'},
        {"unsigned long", 'L'},  {"unsigned long long", 'L'},
        {"int64_t", 'l'},        {"uint64_t", 'L'},
        {"size_t", 'z'},         {"short", 'h'},
        {"ushort", 'H'},         {"unsigned short", 'H'},
        {"int16_t", 'h'},        {"uint16_t", 'H'},
        {"char", 'c'},           {"signed char", 'c'},
        {"uchar", 'C'},          {"unsigned char", 'C'},
        {"int8_t", 'c'},         {"uint8_t", 'C'},
        {"bool", 'C'},           {"ptrdiff_t", 'l'},
    };
    const char *type = info->type_name ? info->type_name : "";
    if (strncmp(type, "const ", 6) == 0)
        type += 6;
    for (size_t k = 0; k < sizeof names / sizeof *names; ++k)
        if (strcmp(type, names[k].name) == 0) {
            kp_type result = {names[k].code, info->size};
            /* a long of 4 bytes (never on Linux) is taken by its size */
            if (info->size != 0 &&
                ((names[k].code == 'l' || names[k].code == 'L') &&
                 info->size == 4))
                result.code = names[k].code == 'l' ? 'i' : 'I';
            return result;
        }
    return (kp_type){'V', info->size};
}

static PyObject *kernel_new(PyTypeObject *type, PyObject *args,
                            PyObject *kwargs)
{
    static char *names[] = {"program", "name", NULL};
    PyObject *program_object = NULL;
    const char *name = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os", names,
                                     &program_object, &name))
        return NULL;
    if (!PyObject_TypeCheck(program_object, program_type)) {
        PyErr_SetString(PyExc_TypeError, "Kernel(program, name) takes a Program");
        return NULL;
    }
    kiln_kernel *kernel = NULL;
    if (kp_check(kiln_kernel_create(((kp_program *)program_object)->program,
                                    name, &kernel)) < 0)
        return NULL;
    size_t count = 0;
    if (kp_check(kiln_kernel_get_param_count(kernel, &count)) < 0) {
        kiln_kernel_release(kernel);
        return NULL;
    }
    kp_type *params = PyMem_Calloc(count ? count : 1, sizeof *params);
    if (params == NULL) {
        kiln_kernel_release(kernel);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < count; ++i) {
        kiln_param_info info;
        if (kp_check(kiln_kernel_get_param_info(kernel, i, &info)) < 0) {
            PyMem_Free(params);
            kiln_kernel_release(kernel);
            return NULL;
        }
        params[i] = param_type(&info);
    }
    kp_kernel *self = (kp_kernel *)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        PyMem_Free(params);
        kiln_kernel_release(kernel);
        return NULL;
    }
    self->kernel = kernel;
    self->params = params;
    self->param_count = count;
    Py_INCREF(program_object);
    self->program = program_object;
    return (PyObject *)self;
}

static void kernel_dealloc(PyObject *object)
{
    kp_kernel *self = (kp_kernel *)object;
    if (self->kernel != NULL)
        kiln_kernel_release(self->kernel);
    PyMem_Free(self->params);
    PyMem_Free(self->prepared);
    Py_XDECREF(self->program);
    kp_free(object);
}

/* grid and block tuples of 1 to 3 sizes into a config. */
static int launch_shape(PyObject *grid, PyObject *block,
                        kiln_launch_config *config)
{
    size_t g[3] = {1, 1, 1}, b[3] = {1, 1, 1}, count = 0;
    if (kp_sizes(grid, g, 3, &count, "grid") < 0 ||
        kp_sizes(block, b, 3, &count, "block") < 0)
        return -1;
    config->grid = KILN_DIM3(g[0], g[1], g[2]);
    config->block = KILN_DIM3(b[0], b[1], b[2]);
    return 0;
}

/* Launches with values[first..first+count) converted by `types`; *ms the
 * kernel's time when `timed`. */
static int launch(kp_kernel *self, const kp_type *types, size_t type_count,
                  PyObject *values, Py_ssize_t first, kiln_launch_config *config,
                  bool timed, float *ms)
{
    Py_ssize_t given = PyTuple_Size(values) - first;
    if (given < 0 || (size_t)given != type_count) {
        const char *name = "";
        kiln_kernel_get_name(self->kernel, &name);
        PyErr_Format(PyExc_TypeError,
                     "kernel '%s' takes %zu arguments, %zd given", name,
                     type_count, given);
        return -1;
    }
    kp_args pack;
    kp_args_init(&pack, type_count);
    if (pack.args == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < type_count; ++i)
        if (kp_args_set(&pack, i, &types[i],
                        PyTuple_GetItem(values, first + (Py_ssize_t)i)) < 0) {
            kp_args_free(&pack);
            return -1;
        }
    config->struct_size = sizeof *config;
    config->time_ms = timed ? ms : NULL;
    kiln_status status;
    if (pack.blocking || timed) {
        Py_BEGIN_ALLOW_THREADS
        status = kiln_launch(self->kernel, config, pack.count, pack.args);
        Py_END_ALLOW_THREADS
    } else {
        status = kiln_launch(self->kernel, config, pack.count, pack.args);
    }
    kp_args_free(&pack);
    return kp_check(status);
}

/* shared=, stream= into the config. */
static int launch_options(PyObject *shared, PyObject *stream,
                          kiln_launch_config *config)
{
    if (shared != NULL && shared != Py_None) {
        Py_ssize_t bytes = PyNumber_AsSsize_t(shared, PyExc_OverflowError);
        if (bytes == -1 && PyErr_Occurred())
            return -1;
        if (bytes < 0) {
            PyErr_SetString(PyExc_ValueError, "shared memory size is negative");
            return -1;
        }
        config->local_memory = (size_t)bytes;
    }
    return kp_stream_of(stream, &config->stream);
}

static PyObject *kernel_launch(PyObject *object, PyObject *args,
                               PyObject *kwargs)
{
    static char *names[] = {"grid", "block", "args", "shared", "stream", "time",
                            NULL};
    PyObject *grid = NULL, *block = NULL, *values = NULL, *shared = NULL,
             *stream = Py_None;
    int timed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OOp", names, &grid,
                                     &block, &values, &shared, &stream, &timed))
        return NULL;
    kiln_launch_config config = {0};
    if (launch_shape(grid, block, &config) < 0 ||
        launch_options(shared, stream, &config) < 0)
        return NULL;
    PyObject *tuple = PySequence_Tuple(values);
    if (tuple == NULL)
        return NULL;
    kp_kernel *self = (kp_kernel *)object;
    float ms = 0;
    int result = launch(self, self->params, self->param_count, tuple, 0,
                        &config, timed, &ms);
    Py_DECREF(tuple);
    if (result < 0)
        return NULL;
    if (timed)
        return PyFloat_FromDouble(ms);
    Py_RETURN_NONE;
}

/* PyCUDA's f(*args, block=, grid=(1,1), stream=None, shared=0,
 * time_kernel=False, texrefs=None): seconds when timed. */
static PyObject *kernel_call(PyObject *object, PyObject *args,
                             PyObject *kwargs)
{
    PyObject *block = NULL, *grid = NULL, *stream = Py_None, *shared = NULL,
             *timed_object = NULL;
    if (kwargs != NULL) {
        PyObject *key, *value;
        Py_ssize_t position = 0;
        while (PyDict_Next(kwargs, &position, &key, &value)) {
            const char *name = PyUnicode_AsUTF8AndSize(key, NULL);
            if (name == NULL)
                return NULL;
            if (strcmp(name, "block") == 0)
                block = value;
            else if (strcmp(name, "grid") == 0)
                grid = value;
            else if (strcmp(name, "stream") == 0)
                stream = value;
            else if (strcmp(name, "shared") == 0)
                shared = value;
            else if (strcmp(name, "time_kernel") == 0)
                timed_object = value;
            else if (strcmp(name, "texrefs") == 0) {
                if (value != Py_None && PyObject_IsTrue(value)) {
                    PyErr_SetString(PyExc_NotImplementedError,
                                    "texture references are not supported "
                                    "by Kiln (CUDA 12 removed them too)");
                    return NULL;
                }
            } else {
                PyErr_Format(PyExc_TypeError,
                             "unknown keyword argument '%s'", name);
                return NULL;
            }
        }
    }
    if (block == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "must specify block size (block=(x, y, z))");
        return NULL;
    }
    kiln_launch_config config = {0};
    PyObject *default_grid = NULL;
    if (grid == NULL)
        grid = default_grid = Py_BuildValue("(ii)", 1, 1);
    int failed = grid == NULL || launch_shape(grid, block, &config) < 0 ||
                 launch_options(shared, stream, &config) < 0;
    Py_XDECREF(default_grid);
    if (failed)
        return NULL;
    int timed = timed_object != NULL ? PyObject_IsTrue(timed_object) : 0;
    if (timed < 0)
        return NULL;
    kp_kernel *self = (kp_kernel *)object;
    float ms = 0;
    if (launch(self, self->params, self->param_count, args, 0, &config, timed,
               &ms) < 0)
        return NULL;
    if (timed)
        return PyFloat_FromDouble(ms * 1e-3);
    Py_RETURN_NONE;
}

static PyObject *kernel_prepare(PyObject *object, PyObject *arg)
{
    const char *text = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (text == NULL)
        return NULL;
    kp_type *types = NULL;
    size_t count = 0;
    if (kp_types_parse(text, &types, &count) < 0)
        return NULL;
    kp_kernel *self = (kp_kernel *)object;
    if (count != self->param_count) {
        const char *name = "";
        kiln_kernel_get_name(self->kernel, &name);
        PyMem_Free(types);
        PyErr_Format(PyExc_TypeError,
                     "prepare('%s'): kernel '%s' takes %zu arguments, the "
                     "types give %zu",
                     text, name, self->param_count, count);
        return NULL;
    }
    for (size_t i = 0; i < count; ++i) {
        bool pointer_param = self->params[i].code == 'P';
        bool pointer_type = types[i].code == 'P';
        if (self->params[i].code != 'A' && pointer_param != pointer_type) {
            PyMem_Free(types);
            PyErr_Format(PyExc_TypeError,
                         "prepare('%s'): argument %zu is %s, the type says "
                         "'%c'",
                         text, i, pointer_param ? "a pointer" : "a value",
                         types[i].code);
            return NULL;
        }
    }
    PyMem_Free(self->prepared);
    self->prepared = types;
    self->prepared_count = count;
    Py_INCREF(object);
    return object;
}

/* prepared_call(grid, block, *args, shared_size=0) and, with a stream
 * third, prepared_async_call. */
static PyObject *prepared(PyObject *object, PyObject *args, PyObject *kwargs,
                          bool with_stream, bool timed)
{
    kp_kernel *self = (kp_kernel *)object;
    if (self->prepared == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "prepared call of a kernel that was never prepared");
        return NULL;
    }
    Py_ssize_t fixed = with_stream ? 3 : 2;
    if (PyTuple_Size(args) < fixed) {
        PyErr_Format(PyExc_TypeError, "%s(grid, block%s, *args)",
                     with_stream ? "prepared_async_call" : "prepared_call",
                     with_stream ? ", stream" : "");
        return NULL;
    }
    PyObject *shared = NULL;
    if (kwargs != NULL) {
        shared = PyDict_GetItemString(kwargs, "shared_size");
        if (PyDict_Size(kwargs) > (shared != NULL ? 1 : 0)) {
            PyErr_SetString(PyExc_TypeError,
                            "prepared calls take only shared_size= by keyword");
            return NULL;
        }
    }
    kiln_launch_config config = {0};
    if (launch_shape(PyTuple_GetItem(args, 0), PyTuple_GetItem(args, 1),
                     &config) < 0 ||
        launch_options(shared,
                       with_stream ? PyTuple_GetItem(args, 2) : Py_None,
                       &config) < 0)
        return NULL;
    float ms = 0;
    if (launch(self, self->prepared, self->prepared_count, args, fixed, &config,
               timed, &ms) < 0)
        return NULL;
    if (timed)
        return PyFloat_FromDouble(ms * 1e-3);
    Py_RETURN_NONE;
}

static PyObject *kernel_prepared_call(PyObject *object, PyObject *args,
                                      PyObject *kwargs)
{
    return prepared(object, args, kwargs, false, false);
}

static PyObject *kernel_prepared_async_call(PyObject *object, PyObject *args,
                                            PyObject *kwargs)
{
    return prepared(object, args, kwargs, true, false);
}

static PyObject *kernel_prepared_timed_call(PyObject *object, PyObject *args,
                                            PyObject *kwargs)
{
    return prepared(object, args, kwargs, false, true);
}

static PyObject *kernel_name(PyObject *object, void *closure)
{
    (void)closure;
    const char *name = "";
    if (kp_check(kiln_kernel_get_name(((kp_kernel *)object)->kernel, &name)) < 0)
        return NULL;
    return PyUnicode_FromString(name);
}

static PyObject *kernel_params(PyObject *object, void *closure)
{
    (void)closure;
    kp_kernel *self = (kp_kernel *)object;
    PyObject *list = PyList_New((Py_ssize_t)self->param_count);
    static const char *kinds[] = {"", "buffer", "local", "value",
                                  "pointer_or_value"};
    for (size_t i = 0; list != NULL && i < self->param_count; ++i) {
        kiln_param_info info;
        if (kp_check(kiln_kernel_get_param_info(self->kernel, i, &info)) < 0) {
            Py_DECREF(list);
            return NULL;
        }
        PyObject *entry = Py_BuildValue(
            "{s:s,s:n,s:s,s:s,s:C}", "kind",
            kinds[(int)info.kind >= 1 && (int)info.kind <= 4 ? (int)info.kind : 0],
            "size", (Py_ssize_t)info.size, "name", info.name ? info.name : "",
            "type", info.type_name ? info.type_name : "", "code",
            (int)self->params[i].code);
        if (entry == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SetItem(list, (Py_ssize_t)i, entry);
    }
    return list;
}

static PyObject *kernel_max_block_size(PyObject *object, void *closure)
{
    (void)closure;
    size_t threads = 0;
    if (kp_check(kiln_kernel_get_max_block_size(((kp_kernel *)object)->kernel,
                                                &threads)) < 0)
        return NULL;
    return PyLong_FromSize_t(threads);
}

static PyObject *kernel_program(PyObject *object, void *closure)
{
    (void)closure;
    PyObject *program = ((kp_kernel *)object)->program;
    Py_INCREF(program);
    return program;
}

static PyObject *kernel_native(PyObject *object, void *closure)
{
    (void)closure;
    void *handle = NULL;
    if (kp_check(kiln_kernel_get_native(((kp_kernel *)object)->kernel, &handle,
                                        sizeof handle)) < 0)
        return NULL;
    return PyLong_FromVoidPtr(handle);
}

static PyMethodDef kernel_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))kernel_launch,
     METH_VARARGS | METH_KEYWORDS,
     "launch(grid, block, args, shared=0, stream=None, time=False): runs "
     "the kernel on a grid of blocks; `args` holds one value per parameter "
     "(Buffer, In/Out/InOut, an int address or an object with gpudata for "
     "pointers; numbers, typed by the parameter, or NumPy scalars for "
     "values).  Returns the kernel's milliseconds when time=True."},
    {"prepare", kernel_prepare, METH_O,
     "prepare(types) -> self: fixes the argument types once ('P' pointer, "
     "'i' int32, 'f' float, 'V12' twelve raw bytes...), checked against the "
     "kernel's parameters."},
    {"prepared_call", (PyCFunction)(void (*)(void))kernel_prepared_call,
     METH_VARARGS | METH_KEYWORDS,
     "prepared_call(grid, block, *args, shared_size=0): a launch with the "
     "prepared types."},
    {"prepared_async_call",
     (PyCFunction)(void (*)(void))kernel_prepared_async_call,
     METH_VARARGS | METH_KEYWORDS,
     "prepared_async_call(grid, block, stream, *args, shared_size=0): the "
     "same on a stream."},
    {"prepared_timed_call",
     (PyCFunction)(void (*)(void))kernel_prepared_timed_call,
     METH_VARARGS | METH_KEYWORDS,
     "prepared_timed_call(grid, block, *args, shared_size=0) -> float: the "
     "same, waiting for the kernel; returns its time in seconds."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef kernel_getset[] = {
    {"name", kernel_name, NULL, "The kernel's name.", NULL},
    {"params", kernel_params, NULL,
     "The parameters: dicts of kind, size, name, type and the type "
     "character a call converts arguments by.",
     NULL},
    {"max_block_size", kernel_max_block_size, NULL,
     "The most threads per block this kernel can run with on its device.",
     NULL},
    {"program", kernel_program, NULL, "The kernel's Program.", NULL},
    {"native", kernel_native, NULL,
     "The native handle as an integer: CUfunction or cl_kernel.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot kernel_slots[] = {
    {Py_tp_doc,
     "Kernel(program, name): a kernel of a program.  Called as PyCUDA "
     "calls a function: kernel(*args, block=(x, y, z), grid=(x, y), "
     "shared=0, stream=None, time_kernel=False)."},
    {Py_tp_new, kernel_new},
    {Py_tp_dealloc, kernel_dealloc},
    {Py_tp_methods, kernel_methods},
    {Py_tp_getset, kernel_getset},
    {Py_tp_call, kernel_call},
    {0, NULL},
};

static PyType_Spec kernel_spec = {
    "kiln._kiln.Kernel", sizeof(kp_kernel), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, kernel_slots,
};

int kp_program_register(PyObject *module)
{
    program_type = (PyTypeObject *)PyType_FromSpec(&program_spec);
    kernel_type = (PyTypeObject *)PyType_FromSpec(&kernel_spec);
    if (program_type == NULL || kernel_type == NULL)
        return -1;
    if (kp_add_type(module, "Program", program_type) < 0 ||
        kp_add_type(module, "Kernel", kernel_type) < 0)
        return -1;
    return 0;
}
