// libcurl (Debian's libcurl4, headers from libcurl4-openssl-dev) for object storage, loaded with
// dlopen on first use instead of linked: only commands that talk to a bucket pay for loading it
// and its TLS stack (about 8 ms of start-up measured), and a machine without libcurl still runs
// every other command. curl.h is included for its types and option names only; every call goes
// through the symbolicate_curl_* functions below, which call the loaded library. The variadic
// curl_easy_setopt / curl_easy_getinfo get one non-variadic wrapper per argument type, which Swift
// can call.
#ifndef SYMBOLICATE_CCURL_H
#define SYMBOLICATE_CCURL_H
#include <stddef.h>
#include <curl/curl.h>

/// Loads libcurl.so.4 and runs curl_global_init once per process (thread-safe). Returns 1 when
/// libcurl is usable; 0 otherwise, with the loader's reason in symbolicate_curl_load_error().
int symbolicate_curl_load(void);
/// Why symbolicate_curl_load failed (dlerror's text, or the missing symbol); "" when it did not.
const char *symbolicate_curl_load_error(void);
/// The loaded library's version string ("7.88.1"), or "" before a successful load.
const char *symbolicate_curl_version(void);

// Each of these requires a successful symbolicate_curl_load() first.
CURL *symbolicate_curl_easy_init(void);
void symbolicate_curl_easy_cleanup(CURL *handle);
void symbolicate_curl_easy_reset(CURL *handle);
CURLcode symbolicate_curl_easy_perform(CURL *handle);
const char *symbolicate_curl_easy_strerror(CURLcode code);

CURLcode symbolicate_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode symbolicate_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode symbolicate_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode symbolicate_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode symbolicate_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
/// For CURLOPT_WRITEFUNCTION, CURLOPT_READFUNCTION and CURLOPT_HEADERFUNCTION (same signature).
CURLcode symbolicate_curl_setopt_data_function(CURL *handle, CURLoption option,
                                               size_t (*function)(char *, size_t, size_t, void *));

CURLcode symbolicate_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode symbolicate_curl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);

struct curl_slist *symbolicate_curl_slist_append(struct curl_slist *list, const char *string);
void symbolicate_curl_slist_free_all(struct curl_slist *list);

#endif
