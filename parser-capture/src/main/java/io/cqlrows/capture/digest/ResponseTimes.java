package io.cqlrows.capture.digest;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Response times of one statement: exact up to {@value #EXACT} samples, then a log-linear histogram
 * ({@value #SUB_BUCKETS} buckets per power of two, so a percentile is within 1/{@value
 * #SUB_BUCKETS} of the true value; about 10 KiB). Minimum, maximum and total stay exact. Not
 * thread-safe.
 */
final class ResponseTimes {
  /** Samples kept exactly before the histogram takes over. */
  static final int EXACT = 1024;

  static final int SUB_BITS = 6;
  static final int SUB_BUCKETS = 1 << SUB_BITS;

  /** Powers of two above the linear range; longer times fall in the last bucket (~5 hours). */
  private static final int MAX_EXPONENT = 44;

  private long[] samples = new long[16];
  private int[] histogram;
  private long count;
  private long min = Long.MAX_VALUE;
  private long max;
  private long total;

  void add(long nanos) {
    long v = Math.max(0, nanos);
    count++;
    total += v;
    min = Math.min(min, v);
    max = Math.max(max, v);
    if (histogram != null) {
      histogram[index(v)]++;
      return;
    }
    if (count > EXACT) {
      histogram = new int[index(Long.MAX_VALUE) + 1];
      for (int i = 0; i < EXACT; i++) {
        histogram[index(samples[i])]++;
      }
      samples = null;
      histogram[index(v)]++;
      return;
    }
    if (count > samples.length) {
      samples = Arrays.copyOf(samples, samples.length * 2);
    }
    samples[(int) count - 1] = v;
  }

  long count() {
    return count;
  }

  long min() {
    return count == 0 ? 0 : min;
  }

  long max() {
    return max;
  }

  long total() {
    return total;
  }

  /** The nearest-rank percentile, {@code 0 < p <= 100}; 0 without samples. */
  long percentile(double p) {
    if (count == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(p / 100 * count));
    if (histogram == null) {
      long[] sorted = Arrays.copyOf(samples, (int) count);
      Arrays.sort(sorted);
      return sorted[(int) rank - 1];
    }
    long seen = 0;
    for (int i = 0; i < histogram.length; i++) {
      seen += histogram[i];
      if (seen >= rank) {
        long mid = low(i) + (high(i) - low(i)) / 2;
        return Math.min(max, Math.max(min, mid));
      }
    }
    return max;
  }

  /** Counts by bucket, with each bucket's bounds: only the buckets that have samples. */
  List<DigestReport.Bucket> buckets() {
    List<DigestReport.Bucket> out = new ArrayList<>();
    if (histogram == null) {
      int[] h = new int[index(Long.MAX_VALUE) + 1];
      for (int i = 0; i < count; i++) {
        h[index(samples[i])]++;
      }
      addBuckets(h, out);
    } else {
      addBuckets(histogram, out);
    }
    return out;
  }

  private static void addBuckets(int[] h, List<DigestReport.Bucket> out) {
    for (int i = 0; i < h.length; i++) {
      if (h[i] > 0) {
        out.add(new DigestReport.Bucket(low(i), high(i), h[i]));
      }
    }
  }

  /** Values below {@code SUB_BUCKETS} each have a bucket; above, SUB_BUCKETS per power of two. */
  static int index(long v) {
    if (v < SUB_BUCKETS) {
      return (int) v;
    }
    int e = 63 - Long.numberOfLeadingZeros(v);
    if (e > MAX_EXPONENT) {
      e = MAX_EXPONENT;
      v = (1L << (MAX_EXPONENT + 1)) - 1;
    }
    int sub = (int) ((v >>> (e - SUB_BITS)) & (SUB_BUCKETS - 1));
    return (e - SUB_BITS + 1) * SUB_BUCKETS + sub;
  }

  /** The smallest value of bucket {@code i}. */
  static long low(int i) {
    if (i < SUB_BUCKETS) {
      return i;
    }
    int e = i / SUB_BUCKETS + SUB_BITS - 1;
    int sub = i % SUB_BUCKETS;
    return (1L << e) + ((long) sub << (e - SUB_BITS));
  }

  /** One past the largest value of bucket {@code i}. */
  static long high(int i) {
    if (i < SUB_BUCKETS) {
      return i + 1L;
    }
    int e = i / SUB_BUCKETS + SUB_BITS - 1;
    return low(i) + (1L << (e - SUB_BITS));
  }
}
