#ifndef CURLEW_CCURL_THREAD_NAME_H
#define CURLEW_CCURL_THREAD_NAME_H

#include <pthread.h>

/* Declared here as well: <pthread.h> declares it only under _GNU_SOURCE. */
extern int pthread_setname_np(pthread_t thread, const char *name);

/* Names the calling thread as the system shows it (at most 15 bytes). Foundation's
   `Thread.current.name = ...` can miss a thread that has only just started, which then keeps the
   name of the thread that created it. */
static inline void curlew_name_current_thread(const char *name) {
    pthread_setname_np(pthread_self(), name);
}

#endif
