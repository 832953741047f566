/* The growing text the probes' runtime writes its JSON into (the record, the
 * indirect calls' lines). An allocation that fails marks the text failed and
 * every later append is dropped: the caller then writes no record rather than
 * a truncated one. Internal to the runtime (static functions in a header). */
#ifndef PERFCAST_FEATURES_FEATURE_TEXT_H
#define PERFCAST_FEATURES_FEATURE_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct feature_text {
  char* data;  // NUL-terminated once anything was appended
  size_t size, capacity;
  int failed;
};

static inline void feature_text_append(struct feature_text* t, const char* s, size_t n) {
  if (t->failed) return;
  if (t->size + n + 1 > t->capacity) {
    size_t capacity = t->capacity ? t->capacity : 4096;
    while (capacity < t->size + n + 1) capacity *= 2;
    char* grown = realloc(t->data, capacity);
    if (!grown) {
      t->failed = 1;
      return;
    }
    t->data = grown;
    t->capacity = capacity;
  }
  memcpy(t->data + t->size, s, n);
  t->size += n;
  t->data[t->size] = '\0';
}

/* `s` (n bytes) as a JSON string: quotes, backslashes and control characters escaped. */
static inline void feature_text_append_json(struct feature_text* t, const char* s, size_t n) {
  feature_text_append(t, "\"", 1);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)s[i];
    char escaped[8];
    if (c == '"' || c == '\\') {
      escaped[0] = '\\';
      escaped[1] = (char)c;
      feature_text_append(t, escaped, 2);
    } else if (c < 0x20) {
      snprintf(escaped, sizeof escaped, "\\u%04x", c);
      feature_text_append(t, escaped, 6);
    } else {
      feature_text_append(t, (const char*)&c, 1);
    }
  }
  feature_text_append(t, "\"", 1);
}

#endif
