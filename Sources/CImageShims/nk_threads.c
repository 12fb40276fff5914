#include "nk_threads.h"

#include <pthread.h>

typedef struct {
    void (*work)(int index, void *context);
    void *context;
    int index;
} nk_thread_job;

static void *nk_thread_main(void *argument) {
    nk_thread_job *job = argument;
    job->work(job->index, job->context);
    return NULL;
}

void nk_parallel_for(int count, void (*work)(int index, void *context), void *context) {
    for (int i = NK_MAX_THREADS; i < count; i++) work(i, context); /* beyond the limit: here */
    if (count > NK_MAX_THREADS) count = NK_MAX_THREADS;
    pthread_t threads[NK_MAX_THREADS];
    nk_thread_job jobs[NK_MAX_THREADS];
    int started[NK_MAX_THREADS] = {0};
    for (int i = 1; i < count; i++) {
        jobs[i] = (nk_thread_job){work, context, i};
        started[i] = pthread_create(&threads[i], NULL, nk_thread_main, &jobs[i]) == 0;
        if (!started[i]) work(i, context); /* no thread to be had: do it here */
    }
    work(0, context);
    for (int i = 1; i < count; i++) {
        if (started[i]) pthread_join(threads[i], NULL);
    }
}
