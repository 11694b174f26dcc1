// The libcurl loader: dlopen("libcurl.so.4") once, dlsym the few entry points object storage uses,
// curl_global_init, and non-variadic wrappers over curl_easy_setopt / curl_easy_getinfo. Nothing
// here links against libcurl, so the symbolicate executable has no libcurl in its ldd list.
#include "CCurl.h"
#include "CLibraryLoader.h"
#include <stdio.h>
#include <string.h>

static struct {
    CURLcode (*global_init)(long);
    curl_version_info_data *(*version_info)(CURLversion);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} api;

static char version[64] = "";

#define SYMBOLICATE_CURL_ENTRY(field) {"curl_" #field, (void **)&api.field}

static const symbolicate_entry_point points[] = {
    SYMBOLICATE_CURL_ENTRY(global_init),
    SYMBOLICATE_CURL_ENTRY(version_info),
    SYMBOLICATE_CURL_ENTRY(easy_init),
    SYMBOLICATE_CURL_ENTRY(easy_cleanup),
    SYMBOLICATE_CURL_ENTRY(easy_reset),
    SYMBOLICATE_CURL_ENTRY(easy_perform),
    SYMBOLICATE_CURL_ENTRY(easy_strerror),
    SYMBOLICATE_CURL_ENTRY(easy_setopt),
    SYMBOLICATE_CURL_ENTRY(easy_getinfo),
    SYMBOLICATE_CURL_ENTRY(slist_append),
    SYMBOLICATE_CURL_ENTRY(slist_free_all),
};

// curl_global_init is not thread-safe; the loader runs this once per process, under its lock.
static int global_init(char *error, size_t error_size) {
    CURLcode rc = api.global_init(CURL_GLOBAL_ALL);
    if (rc != CURLE_OK) {
        snprintf(error, error_size, "curl_global_init failed: %s", api.easy_strerror(rc));
        return 0;
    }
    curl_version_info_data *info = api.version_info(CURLVERSION_NOW);
    if (info != NULL && info->version != NULL) snprintf(version, sizeof version, "%s", info->version);
    return 1;
}

static symbolicate_library library = SYMBOLICATE_LIBRARY(NULL, "libcurl.so.4", points, global_init);

int symbolicate_curl_load(void) { return symbolicate_library_ensure(&library); }
const char *symbolicate_curl_load_error(void) { return library.error; }
const char *symbolicate_curl_version(void) { return version; }

CURL *symbolicate_curl_easy_init(void) { return api.easy_init(); }
void symbolicate_curl_easy_cleanup(CURL *handle) { api.easy_cleanup(handle); }
void symbolicate_curl_easy_reset(CURL *handle) { api.easy_reset(handle); }
CURLcode symbolicate_curl_easy_perform(CURL *handle) { return api.easy_perform(handle); }
const char *symbolicate_curl_easy_strerror(CURLcode code) { return api.easy_strerror(code); }

CURLcode symbolicate_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return api.easy_setopt(handle, option, value);
}
CURLcode symbolicate_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return api.easy_setopt(handle, option, value);
}
CURLcode symbolicate_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return api.easy_setopt(handle, option, value);
}
CURLcode symbolicate_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return api.easy_setopt(handle, option, value);
}
CURLcode symbolicate_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return api.easy_setopt(handle, option, value);
}
CURLcode symbolicate_curl_setopt_data_function(CURL *handle, CURLoption option,
                                               size_t (*function)(char *, size_t, size_t, void *)) {
    return api.easy_setopt(handle, option, function);
}

CURLcode symbolicate_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return api.easy_getinfo(handle, info, value);
}
CURLcode symbolicate_curl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return api.easy_getinfo(handle, info, value);
}

struct curl_slist *symbolicate_curl_slist_append(struct curl_slist *list, const char *string) {
    return api.slist_append(list, string);
}
void symbolicate_curl_slist_free_all(struct curl_slist *list) { api.slist_free_all(list); }
