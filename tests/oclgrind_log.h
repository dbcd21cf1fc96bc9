/*
 * clscan tests: what the Oclgrind test programs share (test_oclgrind.c, test_select_oclgrind.c,
 * test_family_oclgrind.c). Oclgrind never fails a program by itself: it writes its messages to
 * the file OCLGRIND_LOG names, so these programs read that log after every case. Oclgrind opens
 * (truncates) the log when a context is created, so a program calls og_log_mark() after creating
 * one. oclgrind_log.c also defines clEnqueueFillBuffer for the library (see there), so the
 * programs linking it must export their symbols (ENABLE_EXPORTS in tests/CMakeLists.txt).
 */
#ifndef CLSCAN_TESTS_OCLGRIND_LOG_H_
#define CLSCAN_TESTS_OCLGRIND_LOG_H_

/* Reads OCLGRIND_LOG; returns 0 (with a message) if it is not set. */
int og_log_start(const char *program);

/* Takes the log's current end as the start of the next case's messages (after a context is
 * created, since Oclgrind truncates the log then). */
void og_log_mark(void);

/* Attributes the log's new messages to `what`: known findings are counted, any other message is
 * printed under `what`. Returns 1 if there was any other message (or the log could not be read). */
int og_log_check(const char *what);

/* Ends a case: prints `what` as ok or FAILED (with msg), failed also when og_log_check(what)
 * finds a message (printed under it). Returns 1 when the case failed. */
int og_case_end(const char *what, int ok, const char *msg);

/* The cases for which og_log_check() returned 1. */
unsigned og_log_reported(void);

/* Prints the known findings seen and, with list_unseen (a program whose cases would draw every
 * known finding), those not seen, whose entries can then be removed; returns the number of
 * entries not seen. */
int og_log_report_known(int list_unseen);

#endif /* CLSCAN_TESTS_OCLGRIND_LOG_H_ */
