/* Orders shared by every sort of numbers: doubles ascending, NaN last, so that qsort's
 * comparator is consistent whatever the data. */
#ifndef VERDICT_COMMON_SORT_H
#define VERDICT_COMMON_SORT_H

/* qsort comparator over double. */
int compare_doubles(const void *a, const void *b);

#endif
