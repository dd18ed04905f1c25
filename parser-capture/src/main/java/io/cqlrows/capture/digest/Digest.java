package io.cqlrows.capture.digest;

import io.cqlrows.capture.replay.FileReplay;
import io.cqlrows.capture.replay.ReplayListener;
import io.cqlrows.capture.replay.Request;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Opcode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A digest of a capture: per statement (each QUERY, EXECUTE and BATCH request), per connection and
 * per request opcode, the requests answered, the errors by code, the response times (from the
 * request's last byte to the answer's last byte, by capture time), the rows, bytes and pages
 * returned, and the requests left unanswered in the capture. Statements are told apart by their
 * text as sent; an EXECUTE is named by the text of its PREPARE wherever in the capture that is,
 * else by its id; a BATCH by its statements.
 *
 * <pre>{@code
 * DigestReport report = Digest.of(Path.of("capture.pcap"), FileReplay.builder().build(),
 *     Digest.Limits.DEFAULT);
 * System.out.print(report.toJson());
 * }</pre>
 *
 * <p><b>Memory</b> is bounded by {@link Limits}: at most {@link Limits#maxStatements} statements
 * and {@link Limits#maxConnections} connections are kept apart (the others are folded into one
 * entry each, with a note), each with at most about 11 KiB of counts and response times: at most
 * {@code (maxStatements + maxConnections) x 11 KiB} in all, besides what the replay itself keeps
 * ({@link FileReplay}).
 *
 * <p>Not thread-safe: one digest per capture, fed by one replay.
 */
public final class Digest {
  /** The name of the entry that holds the statements over the limit. */
  public static final String OTHER_STATEMENTS = "(other statements)";

  /** The name of the entry that holds the connections over the limit. */
  public static final String OTHER_CONNECTIONS = "(other connections)";

  /**
   * Bounds of a digest.
   *
   * @param maxStatements statements kept apart; more are folded into {@link #OTHER_STATEMENTS}
   * @param maxConnections connections kept apart; more are folded into {@link #OTHER_CONNECTIONS}
   * @param top statements and connections listed in the report, the ones with the largest total
   *     response time (0 for all)
   */
  public record Limits(int maxStatements, int maxConnections, int top) {
    /** 2,000 statements, 2,000 connections, top 20: at most about 44 MiB of counts. */
    public static final Limits DEFAULT = new Limits(2_000, 2_000, 20);

    /** Checks the bounds. */
    public Limits {
      if (maxStatements < 1 || maxConnections < 1 || top < 0) {
        throw new IllegalArgumentException(
            "limits: " + maxStatements + ", " + maxConnections + ", " + top);
      }
    }
  }

  /** Counts of one statement, connection or opcode. */
  private static final class Stats {
    final String kind;
    long count;
    long errors;
    final Map<Integer, Long> errorCodes = new TreeMap<>();
    long undecodable;
    long unanswered;
    long rows;
    long responseBytes;
    long pages;
    final ResponseTimes times = new ResponseTimes();

    Stats(String kind) {
      this.kind = kind;
    }

    DigestReport.Entry entry(String name, boolean timed) {
      DigestReport.Times t =
          timed && times.count() > 0
              ? new DigestReport.Times(
                  times.count(),
                  times.min(),
                  times.percentile(50),
                  times.percentile(95),
                  times.percentile(99),
                  times.max(),
                  times.total(),
                  times.buckets())
              : null;
      return new DigestReport.Entry(
          name,
          kind,
          count,
          errors,
          errorCodes,
          undecodable,
          unanswered,
          rows,
          responseBytes,
          pages,
          t);
    }
  }

  /** A statement's identity: its kind and text, prepared ids as {@code 0x...}. */
  private record Key(String kind, String text, List<String> batchIds) {}

  private final Limits limits;
  private final Map<Key, Stats> statements = new HashMap<>();
  private final Map<String, Stats> connections = new LinkedHashMap<>();
  private final Map<String, Stats> opcodes = new TreeMap<>();

  /** Prepared statement ids to their PREPARE's text, within {@link Limits#maxStatements}. */
  private final Map<String, String> preparedText = new HashMap<>();

  private final CountingSink cells = new CountingSink();
  private final List<String> notes = new ArrayList<>();
  private boolean foldedStatements;
  private boolean foldedConnections;
  private boolean timed;
  private long firstNanos;
  private long lastNanos;

  /** A digest within the limits. */
  public Digest(Limits limits) {
    this.limits = Objects.requireNonNull(limits, "limits");
  }

  /** Replays a capture file into a new digest and reports it. */
  public static DigestReport of(Path file, FileReplay replay, Limits limits) throws IOException {
    Digest digest = new Digest(limits);
    FileReplay.Summary summary = replay.replay(file, digest.handler(null));
    return digest.report(file.getFileName().toString(), summary);
  }

  /**
   * A replay handler that feeds this digest.
   *
   * @param also a handler that also hears every connection's notes and ends, and whose listeners
   *     (if its {@code onConnection} returns one; null is allowed) also hear every frame, response
   *     and unanswered request, but not the results, which the digest decodes itself; for a caller
   *     that prints progress or notes; or null
   */
  public FileReplay.Handler handler(FileReplay.Handler also) {
    return new FileReplay.Handler() {
      @Override
      public ReplayListener onConnection(FileReplay.Connection connection) {
        ReplayListener other = also == null ? null : also.onConnection(connection);
        return new ConnectionListener(connection.label(), other);
      }

      @Override
      public void onEnd(
          FileReplay.Connection connection, java.util.Optional<CqlFrameException> failure) {
        if (also != null) {
          also.onEnd(connection, failure);
        }
      }

      @Override
      public void onNote(FileReplay.Connection connection, String note) {
        if (also != null) {
          also.onNote(connection, note);
        }
      }

      @Override
      public void onProgress(long bytesRead, long fileSize) {
        if (also != null) {
          also.onProgress(bytesRead, fileSize);
        }
      }
    };
  }

  /** The report of what was digested so far. */
  public DigestReport report(String file, FileReplay.Summary summary) {
    List<DigestReport.Entry> st = new ArrayList<>();
    for (Map.Entry<Key, Stats> e : statements.entrySet()) {
      st.add(e.getValue().entry(name(e.getKey()), timed));
    }
    List<DigestReport.Entry> co = new ArrayList<>();
    connections.forEach((k, v) -> co.add(v.entry(k, timed)));
    List<DigestReport.Entry> op = new ArrayList<>();
    opcodes.forEach((k, v) -> op.add(v.entry(k, timed)));
    Comparator<DigestReport.Entry> order =
        Comparator.comparingLong(
                (DigestReport.Entry e) -> e.times() == null ? 0 : e.times().total())
            .thenComparingLong(DigestReport.Entry::count)
            .thenComparingLong(DigestReport.Entry::unanswered)
            .reversed()
            .thenComparing(DigestReport.Entry::name);
    st.sort(order);
    co.sort(order);
    op.sort(order);
    return new DigestReport(
        file,
        timed,
        summary.tcpConnections(),
        summary.cqlConnections(),
        summary.bytesRead(),
        firstNanos,
        lastNanos,
        top(st),
        st.size(),
        top(co),
        co.size(),
        op,
        notes);
  }

  private List<DigestReport.Entry> top(List<DigestReport.Entry> all) {
    return limits.top() == 0 || all.size() <= limits.top() ? all : all.subList(0, limits.top());
  }

  private String name(Key k) {
    if (k.kind().equals("EXECUTE")) {
      String text = preparedText.get(k.text());
      return text != null ? text : "EXECUTE " + k.text();
    }
    if (k.kind().equals("BATCH")) {
      List<String> parts = new ArrayList<>();
      for (String s : k.batchIds()) {
        if (s.startsWith("0x")) {
          String text = preparedText.get(s);
          parts.add(text != null ? text : "EXECUTE " + s);
        } else {
          parts.add(s.substring(1)); // a text, marked with a leading space
        }
      }
      return "BATCH: " + parts.stream().collect(Collectors.joining("; "));
    }
    return k.text();
  }

  private Stats statement(Request r) {
    Key key;
    switch (r.opcode()) {
      case QUERY:
        key = new Key("QUERY", r.query() == null ? "(unreadable QUERY)" : r.query(), List.of());
        break;
      case EXECUTE:
        key =
            new Key(
                "EXECUTE",
                r.preparedId() == null ? "(unreadable EXECUTE)" : r.preparedId(),
                List.of());
        break;
      case BATCH:
        List<String> ids = new ArrayList<>(r.batch().size());
        for (Request.BatchStatement s : r.batch()) {
          ids.add(s.query() != null ? " " + s.query() : s.preparedId());
        }
        key = new Key("BATCH", "", ids);
        break;
      default:
        return null;
    }
    Stats s = statements.get(key);
    if (s == null) {
      if (statements.size() >= limits.maxStatements()) {
        key = new Key("OTHER", OTHER_STATEMENTS, List.of());
        if (!foldedStatements) {
          foldedStatements = true;
          notes.add(
              "more than "
                  + limits.maxStatements()
                  + " statements: the others are counted as "
                  + OTHER_STATEMENTS);
        }
        s = statements.get(key);
        if (s == null) {
          s = new Stats("other");
          statements.put(key, s);
        }
      } else {
        s = new Stats(key.kind());
        statements.put(key, s);
      }
    }
    return s;
  }

  private Stats connection(String label) {
    Stats s = connections.get(label);
    if (s == null) {
      if (connections.size() >= limits.maxConnections()) {
        if (!foldedConnections) {
          foldedConnections = true;
          notes.add(
              "more than "
                  + limits.maxConnections()
                  + " connections: the others are counted as "
                  + OTHER_CONNECTIONS);
        }
        return connections.computeIfAbsent(OTHER_CONNECTIONS, k -> new Stats("connection"));
      }
      s = new Stats("connection");
      connections.put(label, s);
    }
    return s;
  }

  private Stats opcode(Opcode op) {
    return opcodes.computeIfAbsent(op == null ? "(unknown)" : op.name(), k -> new Stats("opcode"));
  }

  private void seen(long nanos) {
    if (nanos != 0) {
      timed = true;
      if (firstNanos == 0 || nanos < firstNanos) {
        firstNanos = nanos;
      }
      lastNanos = Math.max(lastNanos, nanos);
    }
  }

  /** The listener of one connection: what each response was, then the exchange. */
  private final class ConnectionListener implements ReplayListener {
    private final String label;
    private final ReplayListener also;
    private long rows;
    private boolean page;
    private int errorCode = -1;
    private boolean undecodable;

    ConnectionListener(String label, ReplayListener also) {
      this.label = label;
      this.also = also;
    }

    @Override
    public RowSink sinkFor(Response response) {
      return cells; // the digest decodes; the other listener hears the exchanges only
    }

    @Override
    public void onResult(Response response, CqlResult result) {
      if (result instanceof RowsResult r) {
        rows = r.rowCount();
        page = true;
      } else if (result instanceof PreparedResult p
          && response.request() != null
          && response.request().query() != null
          && preparedText.size() < limits.maxStatements()) {
        preparedText.put("0x" + HexFormat.of().formatHex(p.id()), response.request().query());
      }
    }

    @Override
    public void onError(Response response, CqlFrameException error) {
      undecodable = true;
    }

    @Override
    public void onServerError(Response response, CqlServerError error) {
      errorCode = error.code();
    }

    @Override
    public void onResponse(Response response) {
      if (also != null) {
        also.onResponse(response);
      }
      Request r = response.request();
      seen(response.timestampNanos());
      long elapsed = response.elapsedNanos();
      add(opcode(r == null ? null : r.opcode()), response, elapsed);
      add(connection(label), response, elapsed);
      if (r != null) {
        Stats s = statement(r);
        if (s != null) {
          add(s, response, elapsed);
        }
      }
      rows = 0;
      page = false;
      errorCode = -1;
      undecodable = false;
    }

    private void add(Stats s, Response response, long elapsed) {
      s.count++;
      if (errorCode >= 0) {
        s.errors++;
        s.errorCodes.merge(errorCode, 1L, Long::sum);
      }
      if (undecodable) {
        s.undecodable++;
      }
      s.rows += rows;
      s.pages += page ? 1 : 0;
      s.responseBytes += response.envelopeBytes();
      if (elapsed >= 0) {
        s.times.add(elapsed);
      }
    }

    @Override
    public void onUnanswered(Request request) {
      if (also != null) {
        also.onUnanswered(request);
      }
      seen(request.timestampNanos());
      opcode(request.opcode()).unanswered++;
      connection(label).unanswered++;
      Stats s = statement(request);
      if (s != null) {
        s.unanswered++;
      }
    }

    @Override
    public void onFrame(boolean fromClient, io.cqlrows.netty.frame.Frame frame) {
      if (also != null) {
        also.onFrame(fromClient, frame);
      }
    }

    @Override
    public void onSkipped(boolean fromClient, int bytes) {
      if (also != null) {
        also.onSkipped(fromClient, bytes);
      }
    }
  }
}
