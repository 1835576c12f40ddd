#ifndef CURLEW_CCURL_SHIM_H
#define CURLEW_CCURL_SHIM_H

#include <curl/curl.h>

/* Swift cannot call C variadic functions, so each argument kind that Curlew
   passes to curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt gets a
   typed, non-variadic wrapper here. */

typedef size_t (*curlew_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*curlew_debug_callback)(CURL *handle, curl_infotype type, char *data, size_t size, void *userdata);
typedef int (*curlew_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                        curl_off_t ultotal, curl_off_t ulnow);

typedef int (*curlew_seek_callback)(void *userdata, curl_off_t offset, int origin);

static inline CURLcode curlew_easy_setopt_seek_callback(CURL *handle, curlew_seek_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, value);
}

static inline CURLcode curlew_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode curlew_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode curlew_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode curlew_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode curlew_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode curlew_easy_setopt_data_callback(CURL *handle, CURLoption option, curlew_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode curlew_easy_setopt_debug_callback(CURL *handle, curlew_debug_callback value) {
    return curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, value);
}

static inline CURLcode curlew_easy_setopt_xferinfo_callback(CURL *handle, curlew_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode curlew_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode curlew_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode curlew_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode curlew_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLSHcode curlew_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

static inline CURLMcode curlew_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

#endif
