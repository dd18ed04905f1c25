package io.cqlrows.capture.gen;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One statement of the synthetic workload, shared by every connection: its text, how it is sent
 * (QUERY, or PREPARE once per connection and then EXECUTE, or BATCH), what it returns (Rows of
 * {@code id int, name varchar, payload blob}, or Void) and its drawn parameters (rows per page,
 * payload size, latency, paging). Immutable.
 */
final class Statement {
  /** What a statement does. */
  enum Kind {
    SELECT,
    INSERT,
    BATCH
  }

  /**
   * One statement of a batch: by text (batch kind 0), or by the id of a prepared INSERT (kind 1).
   *
   * @param text the CQL text (the PREPARE's text for a prepared one)
   * @param prepared the prepared INSERT, or null for a text
   */
  record Member(String text, Statement prepared) {}

  final int index;
  final Kind kind;
  final String keyspace = "ks";
  final String table;
  final String text;

  /** EXECUTE rather than QUERY (PREPARE'd once per connection). */
  final boolean prepared;

  /** EXECUTE with skip_metadata: its Rows come with No_metadata. */
  final boolean skipMetadata;

  /** The prepared id: the MD5 of the text, 16 bytes. */
  final byte[] id;

  /** Rows per Rows result: 1 to this. */
  final int maxRows;

  /** Payload bytes per row: 0 to twice this. */
  final int payloadMean;

  /** The median latency, microseconds. */
  final int latencyMicros;

  /** The probability that a Rows result has more pages. */
  final double pageProbability;

  /** The relative frequency of the statement among a connection's requests. */
  final int weight;

  /** A batch's statements; empty for others. */
  final List<Member> members;

  final StatementKey key;

  private Statement(
      int index,
      Kind kind,
      String text,
      boolean prepared,
      boolean skipMetadata,
      SplittableRandom rnd,
      int payloadMean,
      List<Member> members) {
    this.index = index;
    this.kind = kind;
    this.table = "t" + index;
    this.text = text;
    this.prepared = prepared;
    this.skipMetadata = skipMetadata;
    this.id = md5(text);
    this.maxRows = 1 + rnd.nextInt(200);
    this.payloadMean = (int) (payloadMean * (0.25 + 1.75 * rnd.nextDouble()));
    this.latencyMicros = 100 + rnd.nextInt(5_000);
    this.pageProbability = kind == Kind.SELECT && rnd.nextBoolean() ? 0.3 : 0;
    this.weight = 1 + rnd.nextInt(10);
    this.members = List.copyOf(members);
    if (kind == Kind.BATCH) {
      this.key =
          new StatementKey("BATCH LOGGED " + index, members.stream().map(Member::text).toList());
    } else {
      this.key = StatementKey.of(text);
    }
  }

  /**
   * The workload: {@code count} statements, the last a BATCH when there are at least 3, the others
   * in turn a SELECT by QUERY, a SELECT by EXECUTE, an INSERT by EXECUTE, a SELECT by EXECUTE with
   * skip_metadata, an INSERT by QUERY.
   *
   * @param payloadMean the mean payload bytes per row, before each statement's own factor
   */
  static List<Statement> workload(int count, int payloadMean, SplittableRandom rnd) {
    List<Statement> all = new ArrayList<>();
    int plain = count >= 3 ? count - 1 : count;
    for (int i = 0; i < plain; i++) {
      String select = "SELECT id, name, payload FROM ks.t" + i + " WHERE id = ?";
      String insert = "INSERT INTO ks.t" + i + " (id, name, payload) VALUES (?, ?, ?)";
      Statement s;
      switch (i % 5) {
        case 0:
          s = new Statement(i, Kind.SELECT, select, false, false, rnd, payloadMean, List.of());
          break;
        case 1:
          s = new Statement(i, Kind.SELECT, select, true, false, rnd, payloadMean, List.of());
          break;
        case 2:
          s = new Statement(i, Kind.INSERT, insert, true, false, rnd, payloadMean, List.of());
          break;
        case 3:
          s = new Statement(i, Kind.SELECT, select, true, true, rnd, payloadMean, List.of());
          break;
        default:
          s = new Statement(i, Kind.INSERT, insert, false, false, rnd, payloadMean, List.of());
          break;
      }
      all.add(s);
    }
    if (count >= 3) {
      all.add(batch(count - 1, all, rnd, payloadMean));
    }
    return all;
  }

  private static Statement batch(
      int index, List<Statement> others, SplittableRandom rnd, int payloadMean) {
    List<Member> members = new ArrayList<>();
    int n = 2 + rnd.nextInt(2);
    Statement preparedInsert =
        others.stream().filter(s -> s.kind == Kind.INSERT && s.prepared).findFirst().orElse(null);
    if (preparedInsert != null) {
      members.add(new Member(preparedInsert.text, preparedInsert));
    }
    for (int m = members.size(); m < n; m++) {
      members.add(
          new Member(
              "INSERT INTO ks.log" + index + " (id, name, payload) VALUES (" + m + ", 'b', 0x00)",
              null));
    }
    String label = "BATCH LOGGED " + index;
    return new Statement(index, Kind.BATCH, label, false, false, rnd, payloadMean, members);
  }

  private static byte[] md5(String text) {
    try {
      return MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has MD5", e);
    }
  }
}
