package io.cqlrows.capture.gen;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Generates large synthetic captures of CQL traffic with a known expectation: a classic pcap file
 * (Ethernet, IPv4, TCP) of many interleaved connections from clients 127.0.1.x to a server at
 * 127.0.0.2:9042, speaking protocol v4 without compression (OPTIONS, STARTUP, then QUERY, PREPARE,
 * EXECUTE and BATCH requests, some pipelined, answered by RESULTs (Rows, some of them paged;
 * Prepared; Void) and ERRORs), with the TCP faults it is asked for (reordered, retransmitted,
 * overlapping and lost segments), and returns what the file holds ({@link Expected}): packets,
 * bytes, requests per opcode and, per statement, responses, errors, rows, bytes, pages and response
 * times.
 *
 * <p>The bytes (pcap records, Ethernet, IPv4, TCP and CQL envelopes) are written by this package
 * alone, not by the module's {@code PcapWriter} or frame encoders: the captures check the module's
 * reassembly and digest, so they must not share its mistakes. The file is written as it is made (a
 * 1 GiB capture needs no more heap than a few MiB, the largest response), and the same {@link Spec}
 * always gives the same bytes ({@link java.util.SplittableRandom} from the seed).
 *
 * <pre>{@code
 * SyntheticCapture.Spec spec = SyntheticCapture.spec().seed(42).connections(64).concurrency(16)
 *     .statements(12).targetBytes(1L << 30).errorRate(0.03).reorderRate(0.01)
 *     .retransmitRate(0.005).overlapRate(0.002).lossRate(0).build();
 * SyntheticCapture.Expected expected = SyntheticCapture.write(spec, path);
 * }</pre>
 *
 * <p>Run as a program ({@code java ... io.cqlrows.capture.gen.SyntheticCapture FILE [BYTES
 * [SEED]]}) it writes a capture of BYTES (default 1 GiB) with the spec above and prints the time it
 * took and the expectation's totals. Stateless; every call is independent.
 */
public final class SyntheticCapture {
  /** Request opcodes, the keys of {@link Expected#requestsByOpcode()}. */
  public static final int STARTUP = 0x01;

  /** OPTIONS. */
  public static final int OPTIONS = 0x05;

  /** QUERY. */
  public static final int QUERY = 0x07;

  /** PREPARE. */
  public static final int PREPARE = 0x09;

  /** EXECUTE. */
  public static final int EXECUTE = 0x0A;

  /** BATCH. */
  public static final int BATCH = 0x0D;

  /** Error codes, the keys of {@link StatementStats#errorsByCode()}: Unavailable. */
  public static final int UNAVAILABLE = 0x1000;

  /** Read_timeout. */
  public static final int READ_TIMEOUT = 0x1200;

  /** Invalid. */
  public static final int INVALID = 0x2200;

  private SyntheticCapture() {}

  /** A builder of a {@link Spec}, with the defaults of {@link Spec.Builder}. */
  public static Spec.Builder spec() {
    return new Spec.Builder();
  }

  /**
   * Writes the capture of {@code spec} to {@code out}, which is flushed and not closed.
   *
   * @return what the capture holds
   */
  public static Expected write(Spec spec, OutputStream out) throws IOException {
    return new Generator(spec, out).run();
  }

  /** Writes the capture of {@code spec} to a file, replacing it. */
  public static Expected write(Spec spec, Path file) throws IOException {
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
      return write(spec, out);
    }
  }

  /**
   * What to generate. Rates are probabilities in [0, 1]: {@code errorRate} per QUERY, EXECUTE and
   * BATCH; the TCP fault rates per data segment (reorder and loss: per segment of a response, see
   * {@link Expected}); {@code unansweredRate} per connection (it ends with 1 to 3 requests that get
   * no response before its FIN).
   *
   * @param seed the seed of every random choice
   * @param connections the TCP connections in the file, at most 28,000 (one client port each)
   * @param concurrency the connections open at once, at most
   * @param statements the distinct statements of the workload (the last one a BATCH from 3 on)
   * @param targetBytes the approximate size of the file; each connection makes requests until its
   *     share is written (so the file ends up slightly larger), at least one
   * @param errorRate the fraction of QUERY, EXECUTE and BATCH requests answered by ERROR
   * @param reorderRate the probability that a response segment and the next are written swapped
   * @param retransmitRate the probability that a data segment is written again later
   * @param overlapRate the probability that a data segment and the next are partly written again
   * @param lossRate the probability that a response segment (not a response's first) is never
   *     written
   * @param unansweredRate the probability that a connection ends with unanswered requests
   * @param maxInFlight the most requests one connection sends before reading their responses
   */
  public record Spec(
      long seed,
      int connections,
      int concurrency,
      int statements,
      long targetBytes,
      double errorRate,
      double reorderRate,
      double retransmitRate,
      double overlapRate,
      double lossRate,
      double unansweredRate,
      int maxInFlight) {
    /** Checks the ranges. */
    public Spec {
      check(connections >= 1 && connections <= 28_000, "connections", connections);
      check(concurrency >= 1, "concurrency", concurrency);
      check(statements >= 1, "statements", statements);
      check(targetBytes >= 0, "targetBytes", targetBytes);
      check(maxInFlight >= 1 && maxInFlight <= 128, "maxInFlight", maxInFlight);
      for (double rate :
          new double[] {
            errorRate, reorderRate, retransmitRate, overlapRate, lossRate, unansweredRate
          }) {
        check(rate >= 0 && rate <= 1, "rate", rate);
      }
    }

    private static void check(boolean ok, String name, Object value) {
      if (!ok) {
        throw new IllegalArgumentException(name + ": " + value + " (out of range)");
      }
    }

    /**
     * Builds a {@link Spec}. Defaults: seed 1, 16 connections, 4 at once, 12 statements, 4 MiB,
     * errorRate 0.03, no TCP fault, no unanswered request, 4 requests in flight at most.
     */
    public static final class Builder {
      private long seed = 1;
      private int connections = 16;
      private int concurrency = 4;
      private int statements = 12;
      private long targetBytes = 4L << 20;
      private double errorRate = 0.03;
      private double reorderRate;
      private double retransmitRate;
      private double overlapRate;
      private double lossRate;
      private double unansweredRate;
      private int maxInFlight = 4;

      Builder() {}

      /** See {@link Spec#seed()}. */
      public Builder seed(long v) {
        seed = v;
        return this;
      }

      /** See {@link Spec#connections()}. */
      public Builder connections(int v) {
        connections = v;
        return this;
      }

      /** See {@link Spec#concurrency()}. */
      public Builder concurrency(int v) {
        concurrency = v;
        return this;
      }

      /** See {@link Spec#statements()}. */
      public Builder statements(int v) {
        statements = v;
        return this;
      }

      /** See {@link Spec#targetBytes()}. */
      public Builder targetBytes(long v) {
        targetBytes = v;
        return this;
      }

      /** See {@link Spec#errorRate()}. */
      public Builder errorRate(double v) {
        errorRate = v;
        return this;
      }

      /** See {@link Spec#reorderRate()}. */
      public Builder reorderRate(double v) {
        reorderRate = v;
        return this;
      }

      /** See {@link Spec#retransmitRate()}. */
      public Builder retransmitRate(double v) {
        retransmitRate = v;
        return this;
      }

      /** See {@link Spec#overlapRate()}. */
      public Builder overlapRate(double v) {
        overlapRate = v;
        return this;
      }

      /** See {@link Spec#lossRate()}. */
      public Builder lossRate(double v) {
        lossRate = v;
        return this;
      }

      /** See {@link Spec#unansweredRate()}. */
      public Builder unansweredRate(double v) {
        unansweredRate = v;
        return this;
      }

      /** See {@link Spec#maxInFlight()}. */
      public Builder maxInFlight(int v) {
        maxInFlight = v;
        return this;
      }

      /** The spec; throws {@link IllegalArgumentException} for a value out of range. */
      public Spec build() {
        return new Spec(
            seed,
            connections,
            concurrency,
            statements,
            targetBytes,
            errorRate,
            reorderRate,
            retransmitRate,
            overlapRate,
            lossRate,
            unansweredRate,
            maxInFlight);
      }
    }
  }

  /**
   * What a synthetic capture holds. Requests are counted once each, whatever became of their
   * responses. Faults: a reordered pair is a response segment written after the next one, with a
   * pure ACK of the client through both between them (only segments before a response's last one);
   * a retransmission is a data segment written again, identical, after the next packet; an overlap
   * is a segment written again that spans the second half of one segment and the first half of the
   * next, same bytes; a lost segment is a response segment never written (never a response's first,
   * so a reader knows the envelope's length and where the next one starts). The file's timestamps
   * increase packet by packet, except where a pair is reordered.
   *
   * @param packets the packets in the file
   * @param fileBytes the file's length
   * @param connections the TCP connections
   * @param requestsByOpcode every request by opcode ({@link #OPTIONS}, {@link #STARTUP}, {@link
   *     #QUERY}, {@link #PREPARE}, {@link #EXECUTE}, {@link #BATCH})
   * @param statements per statement (QUERY, PREPARE, EXECUTE and BATCH requests), in workload
   *     order, only those with requests
   * @param statementsByOpcode the same per statement and request opcode: a prepared statement's
   *     {@code statements} entry is the sum of its PREPARE and its EXECUTE entries here (a reader
   *     that, like a digest, keeps PREPARE apart compares with these)
   * @param connectionStats per connection, in the order of their SYNs
   * @param responses every response complete in the file, SUPPORTED and READY included
   * @param sumResponseNanos the sum of the response times of {@code responses} (see {@link
   *     StatementStats#minResponseNanos()}), SUPPORTED and READY included
   * @param reorders the reordered pairs of segments
   * @param retransmissions the segments written twice
   * @param overlaps the overlapping segments
   * @param lostSegments the segments never written
   * @param lostBytes the bytes of {@code lostSegments}
   */
  public record Expected(
      long packets,
      long fileBytes,
      int connections,
      Map<Integer, Long> requestsByOpcode,
      Map<StatementKey, StatementStats> statements,
      Map<StatementKey, Map<Integer, StatementStats>> statementsByOpcode,
      List<ConnectionStats> connectionStats,
      long responses,
      long sumResponseNanos,
      long reorders,
      long retransmissions,
      long overlaps,
      long lostSegments,
      long lostBytes) {
    /** Copies the collections (the statements' map keeps its order). */
    public Expected {
      requestsByOpcode = Map.copyOf(requestsByOpcode);
      statements = Collections.unmodifiableMap(new LinkedHashMap<>(statements));
      Map<StatementKey, Map<Integer, StatementStats>> byOpcode = new LinkedHashMap<>();
      statementsByOpcode.forEach((k, v) -> byOpcode.put(k, Map.copyOf(v)));
      statementsByOpcode = Collections.unmodifiableMap(byOpcode);
      connectionStats = List.copyOf(connectionStats);
    }

    /** The requests of one opcode. */
    public long requests(int opcode) {
      return requestsByOpcode.getOrDefault(opcode, 0L);
    }

    /** All the requests. */
    public long requests() {
      return requestsByOpcode.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /**
   * The spec of the class's example: 64 connections, 16 at once, 12 statements, 3% errors, 1% of
   * response segments reordered, 0.5% retransmitted, 0.2% overlapping, none lost.
   *
   * @param bytes the capture's size, at least
   * @param seed the seed
   */
  public static Spec example(long bytes, long seed) {
    return spec()
        .seed(seed)
        .connections(64)
        .concurrency(16)
        .statements(12)
        .targetBytes(bytes)
        .errorRate(0.03)
        .reorderRate(0.01)
        .retransmitRate(0.005)
        .overlapRate(0.002)
        .build();
  }

  /**
   * Writes a capture: {@code FILE [BYTES [SEED]]}, BYTES 1 GiB by default, with the spec of the
   * class's example, and prints the time it took and the totals.
   */
  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: SyntheticCapture FILE [BYTES [SEED]]");
      System.exit(2);
    }
    Path file = Path.of(args[0]);
    long bytes = args.length > 1 ? Long.parseLong(args[1]) : 1L << 30;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 42;
    Spec spec = example(bytes, seed);
    long start = System.nanoTime();
    Expected e = write(spec, file);
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf(
        "%s: %,d bytes (file %,d), %,d packets, %,d requests, %,d responses in %,d ms;"
            + " max heap %,d MiB%n",
        file,
        e.fileBytes(),
        Files.size(file),
        e.packets(),
        e.requests(),
        e.responses(),
        millis,
        Runtime.getRuntime().maxMemory() >> 20);
  }
}
