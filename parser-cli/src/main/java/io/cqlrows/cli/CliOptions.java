package io.cqlrows.cli;

import io.cqlrows.capture.digest.Digest;
import io.cqlrows.capture.pcap.TcpFlows;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The parsed command line of {@code replay}, {@code stats} and {@code digest}.
 *
 * @param command {@code replay}, {@code stats} or {@code digest}
 * @param format {@code jsonl}, {@code table}, {@code vertical}, {@code csv} or {@code arrow}; for
 *     {@code digest}, {@code table} or {@code json}
 * @param columns column names to print, or null for all
 * @param limit how many results (and error lines) to print at most
 * @param stream the only stream id to print, or null for all
 * @param port the CQL server port in a pcap, or null to find CQL connections by their bytes
 * @param clientToServer the client-to-server capture given with {@code --c2s}, or null
 * @param features the protocol extensions of connections whose STARTUP is not in the capture
 *     ({@code --scylla-metadata-id}, {@code --extension NAME})
 * @param limits the parser's limits: the defaults, with malformed text replaced under {@code
 *     --lenient-text}
 * @param output with {@code arrow}: the directory for one file per result, or one {@code .arrow}
 *     file for the results of {@code stream}
 * @param flowLimits the bounds of TCP reassembly ({@code --max-open-connections}, {@code
 *     --max-buffered-mib})
 * @param top {@code digest}: statements and connections listed, 0 for all
 * @param svg {@code digest}: where to write the SVG image, or null
 * @param file the capture
 */
record CliOptions(
    String command,
    String format,
    List<String> columns,
    long limit,
    Integer stream,
    Integer port,
    Path clientToServer,
    ProtocolFeatures features,
    ParseLimits limits,
    Path output,
    TcpFlows.Limits flowLimits,
    int top,
    Path svg,
    Path file) {

  /** Whether the Arrow output is one file (not a directory). */
  boolean oneArrowFile() {
    return output != null && output.getFileName().toString().endsWith(".arrow");
  }

  /** Thrown for {@code --help}: carries the usage text to print on stdout. */
  static final class Help extends Exception {
    private static final long serialVersionUID = 1L;

    Help(String usage) {
      super(usage, null, false, false);
    }
  }

  /** Parses the arguments; {@link Help} for {@code --help}. */
  static CliOptions parse(String[] args) throws Help {
    if (args.length == 0) {
      throw new IllegalArgumentException("missing command");
    }
    String command = args[0];
    if (command.equals("--help") || command.equals("-h") || command.equals("help")) {
      throw new Help(Usage.MAIN);
    }
    if (!command.equals("replay") && !command.equals("stats") && !command.equals("digest")) {
      throw new IllegalArgumentException("unknown command: " + command);
    }
    if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
      throw new Help(help(command));
    }
    return parseOptions(command, args);
  }

  /** The options that take no value. */
  private static final List<String> FLAGS =
      List.of("--scylla-metadata-id", "--lenient-text", "--help");

  /** The options that take a value. */
  private static final List<String> WITH_VALUE =
      List.of(
          "--format",
          "--columns",
          "--limit",
          "--stream",
          "--port",
          "--c2s",
          "--output",
          "--extension",
          "--max-open-connections",
          "--max-buffered-mib",
          "--top",
          "--svg");

  private static String help(String command) {
    return switch (command) {
      case "replay" -> Usage.REPLAY;
      case "digest" -> Usage.DIGEST;
      default -> Usage.STATS;
    };
  }

  private static CliOptions parseOptions(String command, String[] args) {
    boolean digest = command.equals("digest");
    String format = digest ? "table" : "jsonl";
    int maxOpen = TcpFlows.Limits.DEFAULT.maxOpenConnections();
    long maxBuffered = TcpFlows.Limits.DEFAULT.maxBufferedBytes();
    int top = Digest.Limits.DEFAULT.top();
    Path svg = null;
    List<String> columns = null;
    long limit = Long.MAX_VALUE;
    Integer stream = null;
    Integer port = null;
    Path c2s = null;
    ProtocolFeatures features = ProtocolFeatures.NONE;
    ParseLimits limits = ParseLimits.defaults();
    Path output = null;
    Path file = null;
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || a.length() == 2) {
        if (file != null) {
          throw new IllegalArgumentException("unexpected argument: " + a);
        }
        file = Path.of(a);
        continue;
      }
      if (a.equals("--scylla-metadata-id")) {
        features = features.withExtension(ProtocolFeatures.SCYLLA_USE_METADATA_ID);
        continue;
      }
      if (a.equals("--lenient-text")) {
        limits = limits.toBuilder().replaceMalformedText(true).build();
        continue;
      }
      if (!WITH_VALUE.contains(a)) {
        throw Usage.unknownOption(a, WITH_VALUE, FLAGS, help(command));
      }
      if (++i == args.length) {
        throw new Usage.Mistake(a + " needs a value", help(command));
      }
      String v = args[i];
      switch (a) {
        case "--format" -> format = digest ? digestFormat(v) : format(v);
        case "--max-open-connections" -> maxOpen = (int) number(a, v, 1, Integer.MAX_VALUE);
        case "--max-buffered-mib" -> maxBuffered = number(a, v, 0, 1 << 20) << 20;
        case "--top" -> top = (int) number(a, v, 0, Integer.MAX_VALUE);
        case "--svg" -> svg = Path.of(v);
        case "--columns" -> columns = List.of(v.split(","));
        case "--limit" -> limit = number(a, v, 0, Long.MAX_VALUE);
        case "--stream" -> stream = (int) number(a, v, -32768, 32767);
        case "--port" -> port = (int) number(a, v, 1, 65535);
        case "--c2s" -> c2s = Path.of(v);
        case "--output" -> output = Path.of(v);
        case "--extension" -> features = extension(features, v);
        default -> throw new AssertionError(a);
      }
    }
    if (file == null) {
      throw new IllegalArgumentException("missing FILE");
    }
    if (format.equals("arrow") != (output != null)
        || (output != null && !command.equals("replay"))) {
      throw new IllegalArgumentException(
          output == null
              ? "--format arrow needs --output"
              : "--output is for replay --format arrow");
    }
    if (!digest && (svg != null || top != Digest.Limits.DEFAULT.top())) {
      throw new IllegalArgumentException("--top and --svg are for digest");
    }
    TcpFlows.Limits flowLimits =
        new TcpFlows.Limits(
            maxOpen,
            Math.min(TcpFlows.Limits.DEFAULT.maxBufferedBytesPerDirection(), maxBuffered),
            maxBuffered);
    CliOptions options =
        new CliOptions(
            command,
            format,
            columns,
            limit,
            stream,
            port,
            c2s,
            features,
            limits,
            output,
            flowLimits,
            top,
            svg,
            file);
    if (options.oneArrowFile() && stream == null) {
      throw new IllegalArgumentException(
          "--output "
              + output
              + " (one .arrow file) needs --stream N: one file holds one query's pages");
    }
    return options;
  }

  private static ProtocolFeatures extension(ProtocolFeatures features, String name) {
    try {
      return features.withExtension(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--extension: "
              + name
              + " (expected one of "
              + String.join(", ", ProtocolFeatures.knownExtensions())
              + ")");
    }
  }

  private static String format(String value) {
    return switch (value) {
      case "jsonl", "table", "vertical", "csv", "arrow" -> value;
      default ->
          throw new IllegalArgumentException(
              "--format: " + value + " (expected: jsonl, table, vertical, csv or arrow)");
    };
  }

  private static String digestFormat(String value) {
    return switch (value) {
      case "table", "json" -> value;
      default ->
          throw new IllegalArgumentException("--format: " + value + " (expected: table or json)");
    };
  }

  private static long number(String option, String value, long min, long max) {
    try {
      long n = Long.parseLong(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        option + ": " + value + " (expected: a number from " + min + " to " + max + ")");
  }
}
