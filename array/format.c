/*
 * kiln_array_format: an array as NumPy prints it (str(a) with NumPy's
 * default print options: precision 8, threshold 1000, edge items 3, line
 * width 75).  The elements shown are copied to the host, each becomes a
 * word of one width (the widest), and the words are laid out in nested
 * brackets as numpy.core.arrayprint's _formatArray lays them out.
 */
#include "internal.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    PRECISION = 8,   /* digits after the point, at most         */
    THRESHOLD = 1000, /* more elements than this are summarised  */
    EDGE_ITEMS = 3,  /* shown at each end of a summarised axis  */
    LINE_WIDTH = 75,
};

/* The elements shown: the whole array, or, summarised, EDGE_ITEMS at each
 * end of every axis longer than 2 * EDGE_ITEMS.  `kept[d]` lists the
 * indices shown along axis d and `gap[d]` says where "..." goes (the count
 * of indices before it; 0 when the axis is whole). */
typedef struct shown {
    size_t ndim;
    size_t kept_count[KILN_ARRAY_MAX_DIMS];
    size_t kept[KILN_ARRAY_MAX_DIMS][2 * EDGE_ITEMS + 1];
    size_t gap[KILN_ARRAY_MAX_DIMS];
    bool whole;             /* no axis summarised: kept lists are unused */
    size_t count;           /* elements shown                          */
    size_t element_size;
    unsigned char *values;  /* `count` elements, in row-major order     */
} shown;

static size_t shown_extent(const shown *s, const kiln_array *array, size_t d)
{
    return s->whole ? array->shape[d] : s->kept_count[d];
}

/* The elements shown, copied to the host: the whole array when it is not
 * summarised, else each kept run of the last axis (two reads per kept
 * row), all queued on `stream` and waited for once. */
static kiln_status read_shown(const kiln_array *array, shown *s,
                              kiln_stream *stream, const char *function)
{
    s->ndim = array->ndim;
    s->element_size = kiln_dtype_size(array->dtype);
    s->whole = array->size <= THRESHOLD;
    s->count = 1;
    for (size_t d = 0; d < array->ndim; ++d) {
        size_t n = array->shape[d];
        if (!s->whole && n > 2 * EDGE_ITEMS) {
            for (size_t k = 0; k < EDGE_ITEMS; ++k) {
                s->kept[d][k] = k;
                s->kept[d][EDGE_ITEMS + k] = n - EDGE_ITEMS + k;
            }
            s->kept_count[d] = 2 * EDGE_ITEMS;
            s->gap[d] = EDGE_ITEMS;
        } else {
            for (size_t k = 0; k < n && k <= 2 * EDGE_ITEMS; ++k)
                s->kept[d][k] = k;
            s->kept_count[d] = n;
            s->gap[d] = 0;
        }
        s->count *= shown_extent(s, array, d);
    }
    if (array->size == 0 || s->count == 0) {
        s->count = 0;
        return KILN_OK;
    }
    s->values = malloc(s->count * s->element_size);
    if (s->values == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory",
                           function);
    kiln_status status = KILN_OK;
    size_t base = array->offset * s->element_size;
    if (s->whole) {
        status = kiln_buffer_read_async(array->buffer, base, s->values,
                                        s->count * s->element_size, stream);
    } else {
        /* Each kept row of the leading axes, its kept runs of the last. */
        size_t last = array->ndim - 1;
        size_t rows = s->count / s->kept_count[last];
        unsigned char *into = s->values;
        for (size_t r = 0; r < rows && status == KILN_OK; ++r) {
            size_t flat = 0, rest = r;
            for (size_t d = last; d-- > 0;) {
                size_t k = rest % s->kept_count[d];
                rest /= s->kept_count[d];
                size_t stride = 1;
                for (size_t e = d + 1; e < array->ndim; ++e)
                    stride *= array->shape[e];
                flat += s->kept[d][k] * stride;
            }
            size_t runs = s->gap[last] ? 2 : 1;
            for (size_t run = 0; run < runs && status == KILN_OK; ++run) {
                size_t first = s->kept[last][run * s->gap[last]];
                size_t length = s->gap[last] ? EDGE_ITEMS : s->kept_count[last];
                status = kiln_buffer_read_async(
                    array->buffer, base + (flat + first) * s->element_size,
                    into, length * s->element_size, stream);
                into += length * s->element_size;
            }
        }
    }
    if (status == KILN_OK)
        status = array_stream_synchronize(array->context, stream);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    return KILN_OK;
}

/* ---- words ----------------------------------------------------------- */

static double element_double(kiln_dtype dtype, const unsigned char *bytes)
{
    if (dtype == KILN_DTYPE_FLOAT32) {
        float f;
        memcpy(&f, bytes, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, bytes, sizeof d);
    return d;
}

/* An integer element as text. */
static int integer_text(kiln_dtype dtype, const unsigned char *bytes,
                        char *out, size_t size)
{
    union {
        int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32;
        uint32_t u32; int64_t i64; uint64_t u64;
    } v;
    memcpy(&v, bytes, kiln_dtype_size(dtype));
    switch (dtype) {
    case KILN_DTYPE_BOOL: return snprintf(out, size, "%s", v.u8 ? "True"
                                                                : "False");
    case KILN_DTYPE_INT8: return snprintf(out, size, "%d", v.i8);
    case KILN_DTYPE_UINT8: return snprintf(out, size, "%u", v.u8);
    case KILN_DTYPE_INT16: return snprintf(out, size, "%d", v.i16);
    case KILN_DTYPE_UINT16: return snprintf(out, size, "%u", v.u16);
    case KILN_DTYPE_INT32: return snprintf(out, size, "%" PRId32, v.i32);
    case KILN_DTYPE_UINT32: return snprintf(out, size, "%" PRIu32, v.u32);
    case KILN_DTYPE_INT64: return snprintf(out, size, "%" PRId64, v.i64);
    default: return snprintf(out, size, "%" PRIu64, v.u64);
    }
}

/* True when `text` reads back as `value` in the element's precision. */
static bool reads_back(const char *text, double value, bool single)
{
    double read = strtod(text, NULL);
    return single ? (float)read == (float)value : read == value;
}

/* The fewest digits (at most PRECISION) after the point with which `value`
 * reads back: NumPy's "unique" digits, fixed or scientific. */
static int unique_digits(double value, bool single, bool scientific)
{
    char text[64];
    for (int digits = 0; digits < PRECISION; ++digits) {
        snprintf(text, sizeof text, scientific ? "%.*e" : "%.*f", digits,
                 value);
        if (reads_back(text, value, single))
            return digits;
    }
    return PRECISION;
}

/* How the floating-point words of one array are made (NumPy's
 * FloatingFormat.fillFormat): fixed or scientific, for every value. */
typedef struct float_layout {
    bool scientific;
    int digits;      /* scientific: mantissa digits, the same for all  */
    int pad_left;    /* fixed: width of the integer part               */
    int pad_right;   /* fixed: most digits after the point             */
    int exp_digits;  /* scientific: digits of the exponent (at least 2) */
    bool single;
} float_layout;

static float_layout float_layout_of(const shown *s, kiln_dtype dtype)
{
    float_layout layout = {.single = dtype == KILN_DTYPE_FLOAT32};
    double largest = 0, smallest = INFINITY;
    bool any_finite = false, negative_inf = false, any_special = false;
    for (size_t i = 0; i < s->count; ++i) {
        double v = element_double(dtype, s->values + i * s->element_size);
        if (!isfinite(v)) {
            any_special = true;
            negative_inf |= isinf(v) && v < 0;
            continue;
        }
        any_finite = true;
        double a = fabs(v);
        if (a != 0) {
            largest = a > largest ? a : largest;
            smallest = a < smallest ? a : smallest;
        }
    }
    layout.scientific = largest > 0 && (largest >= 1e8 || smallest < 1e-4 ||
                                        largest / smallest > 1e3);
    for (size_t i = 0; any_finite && i < s->count; ++i) {
        double v = element_double(dtype, s->values + i * s->element_size);
        if (!isfinite(v))
            continue;
        char text[400];
        if (layout.scientific) {
            int digits = unique_digits(v, layout.single, true);
            layout.digits = digits > layout.digits ? digits : layout.digits;
            snprintf(text, sizeof text, "%.*e", digits, v);
            const char *e = strchr(text, 'e');
            int exp_digits = e ? (int)strlen(e + 2) : 2;
            layout.exp_digits =
                exp_digits > layout.exp_digits ? exp_digits : layout.exp_digits;
        } else {
            int digits = unique_digits(v, layout.single, false);
            layout.pad_right =
                digits > layout.pad_right ? digits : layout.pad_right;
            snprintf(text, sizeof text, "%.*f", digits, v);
            int integer = (int)(strchr(text, '.') ? strchr(text, '.') - text
                                                  : (long)strlen(text));
            layout.pad_left = integer > layout.pad_left ? integer : layout.pad_left;
        }
    }
    if (!layout.scientific && any_special) {
        /* "nan", "inf", "-inf" fit the words' width. */
        int special = negative_inf ? 4 : 3;
        int offset = layout.pad_right + 1;
        if (special - offset > layout.pad_left)
            layout.pad_left = special - offset;
    }
    if (layout.exp_digits < 2)
        layout.exp_digits = 2;
    return layout;
}

static int float_text(const float_layout *layout, double v, char *out,
                      size_t size)
{
    if (!isfinite(v)) {
        const char *word = isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
        int width = layout->scientific
                        ? 0
                        : layout->pad_left + layout->pad_right + 1;
        return snprintf(out, size, "%*s", width, word);
    }
    if (layout->scientific) {
        /* "1.2345e+03": every mantissa with the same digits (zeros added),
         * every exponent with the same number of digits. */
        char text[64];
        snprintf(text, sizeof text, "%.*e", layout->digits, v);
        char *e = strchr(text, 'e');
        *e = '\0';
        char sign = e[1];
        const char *exponent = e + 2;
        while (*exponent == '0' && strlen(exponent) > (size_t)layout->exp_digits)
            ++exponent;
        return snprintf(out, size, "%s%se%c%0*d", text,
                        strchr(text, '.') ? "" : ".", sign, layout->exp_digits,
                        atoi(exponent));
    }
    /* "  1.5  ": the integer part right-aligned, the digits after the
     * point left-aligned, so that the points line up; "1." for a whole
     * number. */
    char text[400];
    int digits = unique_digits(v, layout->single, false);
    snprintf(text, sizeof text, "%.*f", digits, v);
    const char *point = strchr(text, '.');
    int integer = point ? (int)(point - text) : (int)strlen(text);
    int fraction = point ? (int)strlen(point + 1) : 0;
    return snprintf(out, size, "%*s%.*s.%s%*s", layout->pad_left - integer, "",
                    integer, text, point ? point + 1 : "",
                    layout->pad_right - fraction, "");
}

/* ---- layout ------------------------------------------------------------ */

typedef struct writer {
    array_text text;
    char **words;     /* one per element shown, all of one width */
} writer;

/* The 1-D rows: words apart by a space, wrapped before LINE_WIDTH at the
 * row's indent (NumPy's _extendLine: a line holding only its indent is
 * never wrapped). */
static void write_row(writer *w, const shown *s, const kiln_array *array,
                      size_t depth, size_t first)
{
    size_t indent = depth + 1;                  /* the '[' and its parents'  */
    size_t limit = LINE_WIDTH - depth - 1;      /* room for the closing ']'s */
    size_t extent = shown_extent(s, array, depth);
    size_t line = indent;
    for (size_t k = 0, item = 0; k < extent; ++item) {
        bool summary = s->gap[depth] && k == s->gap[depth] && item == k;
        const char *word = summary ? "..." : w->words[first + k];
        if (item > 0) {
            if (line + 1 + strlen(word) > limit && line > indent) {
                array_text_add(&w->text, "\n%*s", (int)indent, "");
                line = indent;
            } else {
                array_text_add(&w->text, " ");
                line += 1;
            }
        }
        array_text_add(&w->text, "%s", word);
        line += strlen(word);
        if (!summary)
            ++k;
    }
}

/* The sub-array at `depth` whose first shown element is word `first`, in
 * brackets: rows apart by a line, blocks of rows by one more line per
 * axis below, each indented under its '['. */
static void write_block(writer *w, const shown *s, const kiln_array *array,
                        size_t depth, size_t first)
{
    array_text_add(&w->text, "[");
    if (depth + 1 == array->ndim) {
        write_row(w, s, array, depth, first);
    } else {
        size_t block = 1;
        for (size_t d = depth + 1; d < array->ndim; ++d)
            block *= shown_extent(s, array, d);
        size_t extent = shown_extent(s, array, depth);
        size_t lines = array->ndim - depth - 1;
        for (size_t k = 0; k < extent; ++k) {
            if (k > 0) {
                for (size_t n = 0; n < lines; ++n)
                    array_text_add(&w->text, "\n");
                array_text_add(&w->text, "%*s", (int)(depth + 1), "");
            }
            if (s->gap[depth] && k == s->gap[depth]) {
                array_text_add(&w->text, "...");
                for (size_t n = 0; n < lines; ++n)
                    array_text_add(&w->text, "\n");
                array_text_add(&w->text, "%*s", (int)(depth + 1), "");
            }
            write_block(w, s, array, depth + 1, first + k * block);
        }
    }
    array_text_add(&w->text, "]");
}

kiln_status kiln_array_format(const kiln_array *array, char *text, size_t size,
                              size_t *length, kiln_stream *stream)
{
    static const char function[] = "kiln_array_format";
    kiln_status status = array_check(array, function, "array");
    if (status != KILN_OK)
        return status;
    if (text == NULL && size > 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: text is NULL with a size of %zu", function,
                           size);
    if (array->size > 1 && !array_is_contiguous(array)) {
        /* a view in another layout is printed from a C-ordered copy */
        kiln_array *copy = NULL;
        status = array_contiguous(array, stream, function, &copy);
        if (status != KILN_OK)
            return status;
        if (copy != array)
            status = kiln_array_format(copy, text, size, length, stream);
        array_release_array(copy);
        if (copy != array)
            return status;
    }
    shown s = {0};
    status = read_shown(array, &s, stream, function);
    if (status != KILN_OK) {
        free(s.values);
        return status;
    }
    writer w = {0};
    bool floating = array_dtype_is_float(array->dtype);
    float_layout layout = {0};
    if (floating && s.count > 0)
        layout = float_layout_of(&s, array->dtype);
    w.words = calloc(s.count ? s.count : 1, sizeof *w.words);
    size_t width = 0;
    bool failed = w.words == NULL;
    for (size_t i = 0; !failed && i < s.count; ++i) {
        char word[512];
        const unsigned char *bytes = s.values + i * s.element_size;
        if (floating)
            float_text(&layout, element_double(array->dtype, bytes), word,
                       sizeof word);
        else
            integer_text(array->dtype, bytes, word, sizeof word);
        w.words[i] = strdup(word);
        failed = w.words[i] == NULL;
        if (!failed && strlen(word) > width)
            width = strlen(word);
    }
    if (array->dtype == KILN_DTYPE_BOOL)
        width = 5; /* NumPy pads True to False's width, all True or not */
    /* One width for every word, right-aligned, as NumPy pads them. */
    for (size_t i = 0; !failed && i < s.count; ++i) {
        size_t n = strlen(w.words[i]);
        if (n < width) {
            char *padded = malloc(width + 1);
            failed = padded == NULL;
            if (!failed) {
                memset(padded, ' ', width - n);
                memcpy(padded + width - n, w.words[i], n + 1);
                free(w.words[i]);
                w.words[i] = padded;
            }
        }
    }
    if (!failed) {
        if (s.count == 0)
            array_text_add(&w.text, "[]");
        else if (array->ndim == 0)
            array_text_add(&w.text, "%s", w.words[0] + strspn(w.words[0], " "));
        else
            write_block(&w, &s, array, 0, 0);
        failed = w.text.failed || w.text.data == NULL;
    }
    for (size_t i = 0; w.words != NULL && i < s.count; ++i)
        free(w.words[i]);
    free(w.words);
    free(s.values);
    if (failed) {
        array_text_free(&w.text);
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory",
                           function);
    }
    if (size > 0) {
        size_t copied = w.text.length < size - 1 ? w.text.length : size - 1;
        memcpy(text, w.text.data, copied);
        text[copied] = '\0';
    }
    if (length != NULL)
        *length = w.text.length;
    array_text_free(&w.text);
    return kiln_error_set(KILN_OK, NULL);
}
