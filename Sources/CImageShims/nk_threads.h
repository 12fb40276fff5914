#ifndef NK_THREADS_H
#define NK_THREADS_H

/*
 * Runs work(0...count-1, context) and returns when all are done: index 0 on this thread,
 * indices 1 to NK_MAX_THREADS - 1 on threads of their own, any more on this thread.
 */
#define NK_MAX_THREADS 8
void nk_parallel_for(int count, void (*work)(int index, void *context), void *context);

#endif
