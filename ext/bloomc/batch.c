/* Batch operations shared by every filter class (the public methods are in
 * lib/bloomc/batch.rb): keys are read from a Ruby Array a group at a time,
 * hashed, and handed to the filter's *_many function, which overlaps the
 * memory fetches of later keys with the probes of earlier ones. */
#include "bloomc.h"

/* Keys hashed per call into the core: enough to keep BF_BATCH_AHEAD keys in
 * flight, small enough for the stack. */
#define GROUP 64

static void check_key_types(VALUE keys)
{
    for (long i = 0; i < RARRAY_LEN(keys); i++) {
        VALUE key = RARRAY_AREF(keys, i);
        if (!RB_TYPE_P(key, T_STRING) && !RB_TYPE_P(key, T_SYMBOL) && !RB_INTEGER_TYPE_P(key))
            rb_raise(rb_eTypeError, "key at index %ld must be a String, Symbol or Integer, not %" PRIsVALUE, i,
                     rb_obj_class(key));
    }
}

/* bloomc_key_hash with the String case inline: a batch spends most of its
 * time here. (Single-key add and include? call it out of line; inlining it
 * there measured slower.) */
static inline bf_key_hash hash_key(VALUE key, const bloomc_batch *b)
{
    if (!RB_TYPE_P(key, T_STRING)) return bloomc_key_hash(key, b->seed, b->kind);
    bf_key_hash h = bf_key_hash_bytes((const uint8_t *)RSTRING_PTR(key), (size_t)RSTRING_LEN(key), b->seed, b->kind);
    RB_GC_GUARD(key);
    return h;
}

/* A key is two dependent memory reads, its object and then its bytes, and a
 * large Array's keys are scattered over the heap: reading them dominates a
 * batch on a small filter. So while hashing key i, the object of key
 * i + 2 * KEY_AHEAD and the bytes of key i + KEY_AHEAD (whose object was
 * fetched earlier) are fetched. A prefetch never faults, and reading the
 * object's header only looks at a live key of the Array. */
#define KEY_AHEAD 8

static inline void prefetch_key(VALUE keys, long i)
{
    if (i + 2 * KEY_AHEAD < RARRAY_LEN(keys)) {
        VALUE later = RARRAY_AREF(keys, i + 2 * KEY_AHEAD);
        if (!RB_SPECIAL_CONST_P(later)) bf_prefetch((const void *)later);
    }
    if (i + KEY_AHEAD < RARRAY_LEN(keys)) {
        VALUE next = RARRAY_AREF(keys, i + KEY_AHEAD);
        if (RB_TYPE_P(next, T_STRING)) bf_prefetch(RSTRING_PTR(next));
    }
}

/* Hash keys[from, from + n) into h (n <= GROUP). Keys are read while the GVL
 * is held, and the Array's length is read again for every key, so an Array
 * shrunk by a hashing side effect (there are none today) is never overrun. */
static size_t hash_group(VALUE keys, long from, const bloomc_batch *b, bf_key_hash *h)
{
    size_t n = 0;
    for (long i = from; i < RARRAY_LEN(keys) && n < GROUP; i++) {
        prefetch_key(keys, i);
        h[n++] = hash_key(RARRAY_AREF(keys, i), b);
    }
    return n;
}

static VALUE keys_arg(VALUE keys)
{
    Check_Type(keys, T_ARRAY);
    return keys;
}

VALUE bloomc_batch_add(const bloomc_batch *b, VALUE keys, VALUE collect)
{
    keys_arg(keys);
    /* Every key is checked before the first is added, so a bad key leaves the
     * filter as it was. */
    check_key_types(keys);
    VALUE fresh_keys = RTEST(collect) ? rb_ary_new() : Qnil;
    bf_key_hash h[GROUP];
    uint8_t fresh[GROUP];
    for (long from = 0; from < RARRAY_LEN(keys);) {
        size_t n = hash_group(keys, from, b, h);
        b->add(b->filter, h, n, NIL_P(fresh_keys) ? NULL : fresh);
        if (!NIL_P(fresh_keys))
            for (size_t i = 0; i < n; i++)
                if (fresh[i]) rb_ary_push(fresh_keys, RARRAY_AREF(keys, from + (long)i));
        from += (long)n;
    }
    RB_GC_GUARD(keys);
    return fresh_keys;
}

VALUE bloomc_batch_lookup(const bloomc_batch *b, VALUE keys, VALUE mode_arg)
{
    keys_arg(keys);
    int mode = NUM2INT(mode_arg);
    if (mode < BLOOMC_BATCH_RESULTS || mode > BLOOMC_BATCH_ANY) rb_raise(rb_eArgError, "unknown batch mode %d", mode);
    /* all_include? and any_include? can answer before the last key: checking
     * every key first keeps a bad key raising wherever it sits. The other
     * lookups hash every key, which raises just the same, and skip the extra
     * pass over the keys. */
    if (mode == BLOOMC_BATCH_ALL || mode == BLOOMC_BATCH_ANY) check_key_types(keys);
    VALUE results = mode == BLOOMC_BATCH_RESULTS ? rb_ary_new_capa(RARRAY_LEN(keys)) : Qnil;
    long found = 0;
    bf_key_hash h[GROUP];
    uint8_t out[GROUP];
    for (long from = 0; from < RARRAY_LEN(keys);) {
        size_t n = hash_group(keys, from, b, h);
        b->lookup(b->filter, h, n, out);
        from += (long)n;
        if (mode == BLOOMC_BATCH_RESULTS) {
            /* true and false are immediates: no write barrier, and one append
             * per group instead of one call per key */
            VALUE answers[GROUP];
            for (size_t i = 0; i < n; i++) answers[i] = RBOOL(out[i]);
            rb_ary_cat(results, answers, (long)n);
        } else {
            size_t group_found = 0;
            for (size_t i = 0; i < n; i++) group_found += out[i];
            if (mode == BLOOMC_BATCH_ALL && group_found < n) return Qfalse;
            if (mode == BLOOMC_BATCH_ANY && group_found > 0) return Qtrue;
            found += (long)group_found;
        }
    }
    RB_GC_GUARD(keys);
    switch (mode) {
    case BLOOMC_BATCH_RESULTS: return results;
    case BLOOMC_BATCH_COUNT: return LONG2NUM(found);
    case BLOOMC_BATCH_ALL: return Qtrue;
    default: return Qfalse;
    }
}

/* The first length bytes of chunk, checked, for a method that appends
 * some of its lines to out (another String). Strings only, not to_str: a
 * converted copy would not be the chunk its caller keeps alive. */
static const char *lines_of(VALUE chunk, VALUE out, VALUE length)
{
    Check_Type(chunk, T_STRING);
    Check_Type(out, T_STRING);
    rb_str_modify(out);
    if (chunk == out) rb_raise(rb_eArgError, "the chunk and the output must be different Strings");
    long n = NUM2LONG(length);
    if (n < 0 || n > RSTRING_LEN(chunk)) rb_raise(rb_eArgError, "length %ld outside the chunk's %ld bytes", n, RSTRING_LEN(chunk));
    return RSTRING_PTR(chunk);
}

/* The private entry points of Bloomc::Batch (lib/bloomc/batch.rb). */
/* The lines of chunk's first length bytes (each ending in '\n', the last
 * perhaps not) whose key, the line without its '\n', was new to the
 * filter (add?): each line is added, and the new ones are appended to out,
 * with a '\n' where they had none. In order, so a line repeated within the
 * chunk is written once. (`bloomc dedup`.) */
VALUE bloomc_batch_dedup(const bloomc_batch *b, VALUE chunk, VALUE out, VALUE length)
{
    const char *p = lines_of(chunk, out, length), *end = p + NUM2LONG(length);
    while (p < end) {
        const char *newline = memchr(p, '\n', (size_t)(end - p));
        const char *key_end = newline ? newline : end;
        bf_key_hash h = bf_key_hash_bytes((const uint8_t *)p, (size_t)(key_end - p), b->seed, b->kind);
        uint8_t fresh;
        b->add(b->filter, &h, 1, &fresh); /* add? in one pass over the cells */
        if (fresh) {
            rb_str_cat(out, p, key_end - p);
            rb_str_cat(out, "\n", 1);
        }
        p = newline ? newline + 1 : end;
    }
    RB_GC_GUARD(chunk);
    return out;
}

static int key_held(const bloomc_batch *b, const char *from, const char *to)
{
    bf_key_hash h = bf_key_hash_bytes((const uint8_t *)from, (size_t)(to - from), b->seed, b->kind);
    uint8_t found;
    b->lookup(b->filter, &h, 1, &found);
    return found != 0;
}

/* Whether any chosen field of the line [from, to) is held: fields are
 * split at delimiter, and field i (from 0) is chosen when chosen is NULL or
 * chosen[i] is not 0; the first field found ends the search. */
static int field_held(const bloomc_batch *b, const char *from, const char *to, int delimiter, const char *chosen, long nchosen)
{
    for (long field = 0;; field++) {
        const char *stop = memchr(from, delimiter, (size_t)(to - from));
        const char *field_end = stop ? stop : to;
        if ((!chosen || (field < nchosen && chosen[field])) && key_held(b, from, field_end)) return 1;
        if (!stop || (chosen && field + 1 >= nchosen)) return 0; /* no line or no chosen field left */
        from = stop + 1;
    }
}

/* The lines of chunk's first length bytes that the filter holds (invert:
 * those it does not), appended to out with a '\n' each; returns how many.
 * A line's key is the line without its '\n'; with a delimiter (a byte),
 * a line is held when any of its chosen fields is: fields is a String whose
 * byte i is not 0 when field i + 1 is chosen, or nil for every field.
 * (`bloomc query`: no Ruby object is made for a key.) */
VALUE bloomc_batch_query(const bloomc_batch *b, VALUE chunk, VALUE out, VALUE length, VALUE delimiter, VALUE fields, VALUE invert)
{
    const char *p = lines_of(chunk, out, length), *end = p + NUM2LONG(length);
    int split = !NIL_P(delimiter);
    int byte = split ? NUM2INT(delimiter) : 0;
    if (split && (byte < 0 || byte > 255 || byte == '\n')) rb_raise(rb_eArgError, "a delimiter is one byte other than a newline, not %d", byte);
    const char *chosen = NULL;
    long nchosen = 0;
    if (!NIL_P(fields)) {
        StringValue(fields);
        chosen = RSTRING_PTR(fields);
        nchosen = RSTRING_LEN(fields);
    }
    int inverted = RTEST(invert);
    long printed = 0;
    while (p < end) {
        const char *newline = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = newline ? newline : end;
        int held = split ? field_held(b, p, line_end, byte, chosen, nchosen) : key_held(b, p, line_end);
        if (held != inverted) {
            rb_str_cat(out, p, line_end - p);
            rb_str_cat(out, "\n", 1);
            printed++;
        }
        p = newline ? newline + 1 : end;
    }
    RB_GC_GUARD(chunk);
    RB_GC_GUARD(fields);
    return LONG2NUM(printed);
}

void bloomc_define_batch_methods(VALUE klass, VALUE (*add)(VALUE, VALUE, VALUE), VALUE (*lookup)(VALUE, VALUE, VALUE))
{
    rb_define_private_method(klass, "batch_add", add, 2);
    if (lookup) rb_define_private_method(klass, "batch_lookup", lookup, 2); /* NULL: the kind defines its own */
}
