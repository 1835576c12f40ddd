#ifndef CURLEW_CCURL_SHIM_H
#define CURLEW_CCURL_SHIM_H

#include <curl/curl.h>

/* Swift cannot call C variadic functions, so each argument kind that Curlew
   passes to curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt gets a
   typed, non-variadic wrapper here. */

typedef size_t (*curlew_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*curlew_debug_callback)(CURL *handle, curl_infotype type, char *data, size_t size, void *userdata);

typedef int (*curlew_seek_callback)(void *userdata, curl_off_t offset, int origin);
typedef int (*curlew_prereq_callback)(void *userdata, char *remote_ip, char *local_ip, int remote_port, int local_port);

static inline CURLcode curlew_easy_setopt_prereq_callback(CURL *handle, curlew_prereq_callback value) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
}

typedef int (*curlew_resolver_start_callback)(void *resolver_state, void *reserved, void *userdata);
typedef int (*curlew_sockopt_callback)(void *userdata, curl_socket_t socket, curlsocktype purpose);

static inline CURLcode curlew_easy_setopt_sockopt_callback(CURL *handle, curlew_sockopt_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, value);
}

static inline CURLcode curlew_easy_setopt_resolver_start_callback(CURL *handle, curlew_resolver_start_callback value) {
    return curl_easy_setopt(handle, CURLOPT_RESOLVER_START_FUNCTION, value);
}

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

/* What the TLS layer negotiated, read from libcurl's OpenSSL session while a transfer runs:
   the protocol version, the cipher, the ALPN protocol and the server's certificate chain. */

#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <openssl/sha.h>
#include <openssl/pem.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

typedef void (*curlew_certificate_callback)(void *context, const char *subject, const char *issuer, const char *names,
                                            const char *not_before, const char *not_after, const unsigned char *spki_sha256);

static inline void curlew_copy_bio(BIO *bio, char *buffer, size_t size) {
    int length = BIO_read(bio, buffer, (int)size - 1);
    buffer[length > 0 ? length : 0] = 0;
    (void)BIO_reset(bio);
}

static inline void curlew_format_time(const ASN1_TIME *time, char *buffer, size_t size) {
    struct tm parts;
    memset(&parts, 0, sizeof parts);
    buffer[0] = 0;
    if (time && ASN1_TIME_to_tm(time, &parts) == 1) strftime(buffer, size, "%Y-%m-%dT%H:%M:%SZ", &parts);
}

/* Subject alternative names as "DNS:a, IP:127.0.0.1, ..." (truncated to the buffer). */
static inline void curlew_format_names(X509 *certificate, char *buffer, size_t size) {
    buffer[0] = 0;
    GENERAL_NAMES *names = X509_get_ext_d2i(certificate, NID_subject_alt_name, NULL, NULL);
    if (!names) return;
    size_t used = 0;
    for (int index = 0; index < sk_GENERAL_NAME_num(names) && used + 1 < size; index++) {
        const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, index);
        char entry[300];
        entry[0] = 0;
        if (name->type == GEN_DNS) {
            const unsigned char *text = ASN1_STRING_get0_data(name->d.dNSName);
            int length = ASN1_STRING_length(name->d.dNSName);
            snprintf(entry, sizeof entry, "DNS:%.*s", length > 250 ? 250 : length, (const char *)text);
        } else if (name->type == GEN_IPADD) {
            const unsigned char *bytes = ASN1_STRING_get0_data(name->d.iPAddress);
            int length = ASN1_STRING_length(name->d.iPAddress);
            if (length == 4) {
                snprintf(entry, sizeof entry, "IP:%u.%u.%u.%u", bytes[0], bytes[1], bytes[2], bytes[3]);
            } else if (length == 16) {
                int written = snprintf(entry, sizeof entry, "IP:");
                for (int word = 0; word < 8; word++) {
                    written += snprintf(entry + written, sizeof entry - written, word ? ":%x" : "%x", (bytes[2 * word] << 8) | bytes[2 * word + 1]);
                }
            }
        } else if (name->type == GEN_EMAIL) {
            const unsigned char *text = ASN1_STRING_get0_data(name->d.rfc822Name);
            int length = ASN1_STRING_length(name->d.rfc822Name);
            snprintf(entry, sizeof entry, "email:%.*s", length > 250 ? 250 : length, (const char *)text);
        }
        if (entry[0]) {
            int written = snprintf(buffer + used, size - used, "%s%s", used ? ", " : "", entry);
            if (written < 0) break;
            used += (size_t)written;
            if (used >= size) { used = size - 1; buffer[used] = 0; }
        }
    }
    GENERAL_NAMES_free(names);
}

/* Fills version, cipher and alpn (empty when unknown) and calls `each` for every certificate the
   server presented, leaf first. Returns 0 when the exchange has no OpenSSL session. */
static inline int curlew_tls_describe(CURL *handle, char *version, size_t version_size, char *cipher, size_t cipher_size,
                                      char *alpn, size_t alpn_size, curlew_certificate_callback each, void *context) {
    struct curl_tlssessioninfo *info = NULL;
    version[0] = cipher[0] = alpn[0] = 0;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || !info || info->backend != CURLSSLBACKEND_OPENSSL || !info->internals) return 0;
    SSL *ssl = (SSL *)info->internals;
    snprintf(version, version_size, "%s", SSL_get_version(ssl));
    const SSL_CIPHER *current = SSL_get_current_cipher(ssl);
    snprintf(cipher, cipher_size, "%s", current ? SSL_CIPHER_get_name(current) : "");
    const unsigned char *protocol = NULL;
    unsigned int protocol_length = 0;
    SSL_get0_alpn_selected(ssl, &protocol, &protocol_length);
    snprintf(alpn, alpn_size, "%.*s", (int)(protocol_length > 64 ? 64 : protocol_length), protocol ? (const char *)protocol : "");
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio) return 1;
    for (int index = 0; chain && index < sk_X509_num(chain) && index < 10; index++) {
        X509 *certificate = sk_X509_value(chain, index);
        char subject[512], issuer[512], names[2048], not_before[32], not_after[32];
        unsigned char digest[SHA256_DIGEST_LENGTH];
        X509_NAME_print_ex(bio, X509_get_subject_name(certificate), 0, XN_FLAG_RFC2253);
        curlew_copy_bio(bio, subject, sizeof subject);
        X509_NAME_print_ex(bio, X509_get_issuer_name(certificate), 0, XN_FLAG_RFC2253);
        curlew_copy_bio(bio, issuer, sizeof issuer);
        curlew_format_names(certificate, names, sizeof names);
        curlew_format_time(X509_get0_notBefore(certificate), not_before, sizeof not_before);
        curlew_format_time(X509_get0_notAfter(certificate), not_after, sizeof not_after);
        unsigned char *spki = NULL;
        int spki_length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate), &spki);
        memset(digest, 0, sizeof digest);
        if (spki_length > 0) SHA256(spki, (size_t)spki_length, digest);
        OPENSSL_free(spki);
        each(context, subject, issuer, names, not_before, not_after, digest);
    }
    BIO_free(bio);
    return 1;
}

/* The SHA-256 of the SubjectPublicKeyInfo of the first certificate in a PEM or DER file. */
static inline int curlew_certificate_file_spki_sha256(const char *path, unsigned char *digest) {
    FILE *file = fopen(path, "rb");
    if (!file) return 0;
    X509 *certificate = PEM_read_X509(file, NULL, NULL, NULL);
    if (!certificate) {
        rewind(file);
        certificate = d2i_X509_fp(file, NULL);
    }
    fclose(file);
    if (!certificate) return 0;
    unsigned char *spki = NULL;
    int length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate), &spki);
    X509_free(certificate);
    if (length <= 0) return 0;
    SHA256(spki, (size_t)length, digest);
    OPENSSL_free(spki);
    return 1;
}

static inline CURLcode curlew_easy_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob;
    blob.data = (void *)data;
    blob.len = length;
    blob.flags = CURL_BLOB_COPY;
    return curl_easy_setopt(handle, option, &blob);
}

#endif
