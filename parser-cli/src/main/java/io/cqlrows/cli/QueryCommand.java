package io.cqlrows.cli;

import io.cqlrows.client.CqlClient;
import io.cqlrows.client.Credentials;
import io.cqlrows.client.QueryResult;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.SchemaChangeResult;
import io.cqlrows.core.SetKeyspaceResult;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.TlsOptions;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.request.Consistency;
import io.cqlrows.netty.request.QueryParameters;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * {@code cqlrows query}: runs statements on one {@link CqlClient} connection and writes every page
 * of their results as it arrives, following the paging state. Memory is bounded by one page (one
 * row, or one Arrow batch, with {@code --streaming}). Ctrl-C lets the current page finish, ends the
 * output (a valid file) and exits 130. One instance per run.
 */
final class QueryCommand {
  /** RESULT bodies from this size on reach the output while they arrive (--streaming). */
  private static final int STREAM_FROM = 1 << 20;

  /** Arrow batches under --streaming. */
  private static final int STREAMING_BATCH_ROWS = 1024;

  private static final long INTERRUPT_WAIT_SECONDS = 60;

  /** How long after --timeout a wait gives up if the client has not ended the request. */
  private static final long BACKSTOP_SECONDS = 5;

  /** The deadline of --timeout 0. */
  private static final Duration NO_LIMIT = Duration.ofDays(36_500);

  private final QueryOptions options;
  private final PrintStream stdout;
  private final PrintStream err;
  private final Progress progress;

  /** Bytes read from the socket. */
  private final AtomicLong received = new AtomicLong();

  private volatile boolean interrupted;

  /** The thread running the statements. */
  private volatile Thread main;

  /** Counted down once the output is finished, so that a Ctrl-C exits after it. */
  private final CountDownLatch finished = new CountDownLatch(1);

  /** Whether the connection is being made (a Ctrl-C then ends the command at once). */
  private volatile boolean connecting = true;

  /** The connection, once made. */
  private CqlClient client;

  /** The request being waited for, which a Ctrl-C at the prompt cancels; or null. */
  private volatile CompletableFuture<?> inFlight;

  // What the prompt's commands change; the options' values at first.

  /** The consistency of every statement ({@code CONSISTENCY}). */
  Consistency consistency;

  /** Rows per page, or 0 for everything at once ({@code PAGING}). */
  int pageSize;

  /** Whether statements are traced ({@code TRACING}). */
  boolean tracing;

  /** Whether the prompt prints vertical blocks ({@code EXPAND}). */
  boolean expand;

  /** The keyspace in use, or null. */
  private volatile String keyspace;

  QueryCommand(QueryOptions options, PrintStream out, PrintStream err) {
    this.options = options;
    this.stdout = out;
    this.err = err;
    this.progress = new Progress(err, !options.quiet() && Progress.isTerminal(2));
    this.consistency = options.consistency();
    this.pageSize = options.pageSize();
    this.tracing = options.tracing();
    this.expand = options.format().equals("vertical");
    this.keyspace = options.keyspace();
  }

  /**
   * Whether to open the prompt: no statement on the command line or in --file, and stdin a
   * terminal.
   */
  private boolean interactive() {
    return options.statements().isEmpty() && options.file() == null && Progress.isTerminal(0);
  }

  /** The prompt's history: {@code ~/.cassandra/cqlrows_history}, or none if it cannot be kept. */
  private Path historyFile() {
    String home = System.getenv().getOrDefault("HOME", System.getProperty("user.home"));
    if (home == null || home.isEmpty()) {
      return null;
    }
    Path dir = Path.of(home, ".cassandra");
    try {
      Files.createDirectories(dir);
      return dir.resolve("cqlrows_history");
    } catch (IOException e) {
      err.println("cqlrows: warning: no history: " + CqlRowsCli.oneLine(e));
      return null;
    }
  }

  /** The keyspace in use, or null. */
  String keyspace() {
    return keyspace;
  }

  /** A statement at the prompt that failed: the message is the one line to print. */
  static final class StatementFailed extends Exception {
    private static final long serialVersionUID = 1L;

    StatementFailed(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Runs one statement of the prompt with the prompt's settings, its result on stdout as a table
   * (vertical blocks with {@code EXPAND ON}) or in the text format of {@code --format}.
   *
   * @throws java.util.concurrent.CancellationException if {@link #cancelInFlight} ended it
   */
  void runStatement(String cql) throws StatementFailed, InterruptedException {
    String format =
        expand ? "vertical" : options.format().equals("arrow") ? "table" : options.format();
    try (Output output = new Text(format, options.jsonNumbers(), stdout, false)) {
      run(client, cql, output);
    } catch (ExecutionException e) {
      throw new StatementFailed(describe(e.getCause()));
    } catch (IOException e) {
      throw new StatementFailed(CqlRowsCli.oneLine(e));
    }
  }

  /** Ctrl-C at the prompt: cancels the request being waited for, if any. */
  void cancelInFlight() {
    CompletableFuture<?> f = inFlight;
    if (f != null) {
      f.cancel(false);
    }
  }

  // NioEventLoopGroup: the one group type both Netty 4.1 and 4.2 have (4.2 deprecates it)
  @SuppressWarnings("deprecation")
  int run() {
    List<String> statements = List.of();
    Credentials credentials;
    for (String warning : options.cqlshrc().warnings()) {
      err.println("cqlrows: warning: " + warning);
    }
    boolean interactive = interactive();
    try {
      if (!interactive) {
        statements = statements();
      }
      credentials = credentials();
    } catch (IOException | IllegalArgumentException e) {
      err.println("cqlrows: " + CqlRowsCli.oneLine(e));
      return e instanceof IOException ? 1 : 2;
    }
    main = Thread.currentThread();
    Thread hook = new Thread(this::onInterrupt, "cqlrows-interrupt");
    Runtime.getRuntime().addShutdownHook(hook);
    EventLoopGroup group = new NioEventLoopGroup(1);
    CqlClient client = null;
    try (Output output = interactive ? null : Output.open(options, stdout, err)) {
      TlsOptions tls = tls();
      client = connect(group, credentials, tls);
      connecting = false;
      this.client = client;
      if (options.keyspace() != null) {
        await(client.query("USE " + options.keyspace(), new CountingSink(), 0, null));
      }
      if (interactive) {
        try (Terminal terminal = TerminalBuilder.builder().system(true).build()) {
          new Shell(this, terminal, historyFile(), stdout, err).run();
        }
      }
      for (String cql : statements) {
        if (interrupted) {
          break;
        }
        run(client, cql, output);
      }
    } catch (ExecutionException e) {
      err.println("cqlrows: " + describe(e.getCause()));
      return 1;
    } catch (IOException e) {
      err.println("cqlrows: " + CqlRowsCli.oneLine(e));
      return 1;
    } catch (TlsFiles.Unreadable e) {
      err.println("cqlrows: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 130;
    } finally {
      progress.end();
      if (client != null) {
        client.close();
      }
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      if (credentials != null) {
        credentials.clear();
      }
      stdout.flush();
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook waits for what was just finished
      }
    }
    return interrupted ? 130 : 0;
  }

  /**
   * Ctrl-C: while connecting (TCP, TLS, the handshake), the command ends at once. Otherwise the
   * current page may finish (for as long as --timeout allows a page), the output is ended, then the
   * JVM exits (status 130). A page still missing then is given up: the main thread is interrupted
   * and ends the output without it.
   */
  private void onInterrupt() {
    interrupted = true;
    long wait =
        options.timeoutSeconds() == 0 ? INTERRUPT_WAIT_SECONDS : options.timeoutSeconds() + 5;
    if (connecting && main != null) {
      main.interrupt(); // nothing written yet: no page to wait for
      wait = 1;
    }
    try {
      if (!finished.await(wait, TimeUnit.SECONDS) && main != null) {
        main.interrupt();
        finished.await(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Every page of one statement into the output, then what --timing and --tracing ask for. */
  private void run(CqlClient client, String cql, Output output)
      throws ExecutionException, InterruptedException, IOException {
    output.newStatement();
    long rows = 0;
    int pages = 0;
    QueryParameters first = QueryParameters.of(consistency).withTracing(tracing);
    Optional<QueryParameters> next = Optional.of(first);
    UUID traceId = null;
    CqlResult last = null;
    long started = System.nanoTime();
    do {
      long left = options.maxRows() > 0 ? options.maxRows() - rows : 0;
      int size =
          left > 0 && (pageSize == 0 || left < pageSize) ? (int) Math.min(left, 1 << 30) : pageSize;
      QueryParameters parameters = next.get().withPageSize(size);
      progress.clear(); // the page's output may start at once
      QueryResult result = await(client.query(cql, output.sink(), parameters));
      if (traceId == null) {
        traceId = result.tracingId(); // the trace of the first page
      }
      for (String warning : result.warnings()) {
        err.println("cqlrows: warning: " + warning.replaceAll("\\s*[\\r\\n]+\\s*", " "));
      }
      last = result.result();
      RowsResult page = result.rows();
      if (page == null) {
        break; // not a SELECT: no rows to write
      }
      rows += page.rowCount();
      pages++;
      output.endPage();
      progress.page(pages, rows, received.get(), System.nanoTime() - started);
      next = parameters.withTracing(false).nextPage(result.result());
    } while (next.isPresent()
        && !interrupted
        && (options.maxRows() == 0 || rows < options.maxRows()));
    long nanos = System.nanoTime() - started;
    progress.end();
    if (last instanceof SetKeyspaceResult use) {
      keyspace = use.keyspace();
    }
    if (last instanceof SchemaChangeResult change && !options.quiet()) {
      err.println("cqlrows: " + describe(change));
    }
    if (options.timing()) {
      err.println("cqlrows: " + timing(last instanceof RowsResult, rows, pages, nanos));
    } else if (last instanceof RowsResult && !options.quiet()) {
      err.println(
          "cqlrows: "
              + rows
              + (rows == 1 ? " row" : " rows")
              + " in "
              + pages
              + (pages == 1 ? " page" : " pages")
              + (interrupted ? " (interrupted)" : ""));
    }
    if (traceId != null && !interrupted) {
      new TraceReport(client, err, consistency, traceWait(), this::await).print(traceId);
    }
  }

  /** How long --tracing waits for a trace to be complete: --timeout, at most 10 s as cqlsh. */
  private Duration traceWait() {
    long seconds = options.timeoutSeconds() == 0 ? 10 : Math.min(10, options.timeoutSeconds());
    return Duration.ofSeconds(seconds);
  }

  /** {@code CREATED TABLE ks.t}, as cqlsh's schema change lines. */
  static String describe(SchemaChangeResult change) {
    StringBuilder sb = new StringBuilder(change.changeType()).append(' ').append(change.target());
    sb.append(' ').append(change.keyspace());
    if (!change.name().isEmpty()) {
      sb.append('.').append(change.name());
    }
    if (!change.argumentTypes().isEmpty()) {
      sb.append('(').append(String.join(", ", change.argumentTypes())).append(')');
    }
    return sb.toString();
  }

  /** The --timing line of a statement. */
  static String timing(boolean withRows, long rows, int pages, long nanos) {
    double ms = nanos / 1e6;
    if (!withRows) {
      return String.format(Locale.ROOT, "done in %.1f ms", ms);
    }
    return String.format(
        Locale.ROOT,
        "%,d %s in %d %s, %.1f ms, %,.0f rows/s",
        rows,
        rows == 1 ? "row" : "rows",
        pages,
        pages == 1 ? "page" : "pages",
        ms,
        rows / Math.max(nanos / 1e9, 1e-9));
  }

  /** Connects as asked; for the default compression, LZ4 unless the server refuses it. */
  private CqlClient connect(EventLoopGroup group, Credentials credentials, TlsOptions tls)
      throws ExecutionException, InterruptedException {
    int version = options.protocol() == 0 ? 5 : options.protocol();
    Compression compression =
        options.compression() == null ? Compression.LZ4 : options.compression();
    CqlClient client;
    try {
      client = connect(group, version, compression, credentials, tls);
    } catch (ExecutionException e) {
      if (options.compression() != null
          || !(e.getCause() instanceof CqlServerError s)
          || !s.serverMessage().toLowerCase(Locale.ROOT).contains("compression")) {
        throw e;
      }
      client = connect(group, version, Compression.NONE, credentials, tls);
    }
    if (options.protocol() == 5 && client.protocolVersion() != 5) {
      client.close();
      throw new ExecutionException(
          new IllegalStateException(server() + " does not speak protocol v5 (it accepted v4)"));
    }
    if (options.streaming()) {
      client.streamResultsFrom(STREAM_FROM);
    }
    return client;
  }

  private CqlClient connect(
      EventLoopGroup group,
      int version,
      Compression compression,
      Credentials credentials,
      TlsOptions tls)
      throws ExecutionException, InterruptedException {
    return await(
        CqlClient.builder(options.host(), options.port())
            .protocolVersion(version)
            .compression(compression)
            .credentials(credentials)
            .tls(tls)
            .connectTimeout(timeout())
            .requestTimeout(timeout())
            .customizer(
                p ->
                    p.addFirst(
                        "cqlrows.cli.received",
                        new ChannelInboundHandlerAdapter() {
                          @Override
                          public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            if (msg instanceof ByteBuf b) {
                              received.addAndGet(b.readableBytes());
                            }
                            ctx.fireChannelRead(msg);
                          }
                        }))
            .connect(group));
  }

  /** --timeout as a deadline; 0 (no limit) as one a century away. */
  private Duration timeout() {
    return options.timeoutSeconds() == 0 ? NO_LIMIT : Duration.ofSeconds(options.timeoutSeconds());
  }

  /** The TLS options of the command line, with their files read; null without TLS. */
  private TlsOptions tls() {
    QueryOptions.Tls tls = options.tls();
    if (tls == null) {
      return null;
    }
    if (tls.insecure()) {
      err.println(
          "cqlrows: warning: --ssl-insecure: the server's certificate is not checked;"
              + " anyone on the way can read and change this connection");
    }
    return TlsFiles.options(tls);
  }

  /**
   * The future's value. Deadlines are the client's (--timeout), which fail the future in time; this
   * wait gives up {@value #BACKSTOP_SECONDS} s later in case the event loop cannot run them (a heap
   * so full that its threads barely move), as a timeout. Waiting here is interruptible, so a Ctrl-C
   * ends it.
   */
  private <T> T await(CompletableFuture<T> future) throws ExecutionException, InterruptedException {
    inFlight = future;
    try {
      if (options.timeoutSeconds() == 0) {
        return future.get();
      }
      return future.get(options.timeoutSeconds() + BACKSTOP_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      future.cancel(false);
      throw e;
    } catch (TimeoutException e) {
      future.cancel(false);
      throw new ExecutionException(
          new CqlConnectionException(
              connecting
                  ? CqlConnectionException.Reason.CONNECT_TIMEOUT
                  : CqlConnectionException.Reason.REQUEST_TIMEOUT,
              server(),
              -1,
              "no answer in time, and the client did not end the request",
              e));
    } finally {
      inFlight = null;
    }
  }

  private String server() {
    return options.host() + ":" + options.port();
  }

  /** One line for what ended the run. */
  private String describe(Throwable e) {
    String server = server();
    if (e instanceof CqlServerError s) {
      return s.codeName() + ": " + s.serverMessage().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }
    if (e instanceof IllegalStateException
        && options.user() == null
        && String.valueOf(e.getMessage()).startsWith("the server requires authentication")) {
      return server + " requires authentication: give --user U (and --password-env VAR)";
    }
    if (e instanceof OutOfMemoryError) {
      return server
          + ": out of memory reading a page (OutOfMemoryError: "
          + e.getMessage()
          + "): try --streaming, a smaller --page-size or a larger -Xmx";
    }
    if (e instanceof CqlConnectionException c) {
      return describe(c, server);
    }
    return server + ": " + CqlRowsCli.oneLine(e);
  }

  /** The lines docs/cli.md shows for a connection that failed or ended. */
  private String describe(CqlConnectionException e, String server) {
    String limit = options.timeoutSeconds() + " s (--timeout)";
    return switch (e.reason()) {
      case REFUSED -> "cannot connect to " + server + ": connection refused";
      case UNKNOWN_HOST -> "cannot connect to " + server + ": unknown host";
      case CONNECT_TIMEOUT -> "cannot connect to " + server + ": not connected within " + limit;
      case CLOSED_BY_SERVER -> server + " closed the connection" + duringTheHandshake();
      case CLOSED_BY_CLIENT -> server + ": the connection was closed";
      case RESET -> server + " reset the connection" + duringTheHandshake();
      case REQUEST_TIMEOUT -> server + ": no response within " + limit;
      case TLS_UNTRUSTED ->
          tls(
              server,
              "its certificate is not signed by a trusted authority"
                  + (options.tls().ca() == null
                      ? " (give its CA with --ssl-ca FILE)"
                      : " in " + options.tls().ca()));
      case TLS_HOST_MISMATCH ->
          tls(
              server,
              "its certificate is not for "
                  + (options.tls().serverName() != null
                      ? options.tls().serverName()
                      : options.host()));
      case TLS_EXPIRED -> tls(server, "its certificate has expired or is not valid yet");
      case TLS_NOT_TLS -> tls(server, "the server does not speak TLS (leave out --ssl)");
      case TLS_CLIENT_CERT_REQUIRED ->
          tls(
              server,
              options.tls().cert() == null
                  ? "the server requires a client certificate (give --ssl-cert FILE --ssl-key FILE)"
                  : "the server did not accept the client certificate " + options.tls().cert());
      default -> server + ": " + CqlRowsCli.oneLine(e).replace(server + ": ", "");
    };
  }

  /**
   * Where a connection that ended was: in the handshake (a server that requires TLS resets or
   * closes a plaintext one there), or nowhere worth saying.
   */
  private String duringTheHandshake() {
    if (!connecting) {
      return "";
    }
    return options.tls() == null
        ? " during the handshake (does it require TLS? try --ssl)"
        : " during the handshake";
  }

  private static String tls(String server, String why) {
    return "TLS handshake with " + server + " failed: " + why;
  }

  /** The statements: the command line's, else --file's or stdin's lines. */
  private List<String> statements() throws IOException {
    if (!options.statements().isEmpty()) {
      return options.statements();
    }
    List<String> lines =
        options.file() != null
            ? Files.readAllLines(options.file(), StandardCharsets.UTF_8)
            : new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                .lines()
                .toList();
    List<String> statements = new ArrayList<>();
    for (String line : lines) {
      String s = line.strip();
      if (!s.isEmpty() && !s.startsWith("--") && !s.startsWith("//")) {
        statements.add(s);
      }
    }
    if (statements.isEmpty()) {
      throw new IllegalArgumentException("no statement to run");
    }
    return statements;
  }

  /**
   * The credentials for --user: the password from --password-env, else from the cqlsh configuration
   * file (for its own username), else a terminal prompt.
   */
  @SuppressWarnings("SystemConsoleNull") // Java 17: null when there is no terminal
  private Credentials credentials() {
    if (options.user() == null) {
      return null;
    }
    char[] password;
    if (options.passwordEnv() != null) {
      String value = System.getenv(options.passwordEnv());
      if (value == null) {
        throw new IllegalArgumentException(
            "--password-env: " + options.passwordEnv() + " is not set");
      }
      password = value.toCharArray();
    } else if (options.cqlshrcPassword() != null) {
      password = options.cqlshrcPassword().toCharArray();
    } else {
      Console console = System.console();
      if (console == null) {
        throw new IllegalArgumentException(
            "no password for "
                + options.user()
                + ": give --password-env VAR, or run on a terminal");
      }
      password = console.readPassword("Password for %s: ", options.user());
    }
    try {
      return new Credentials(options.user(), password);
    } finally {
      Arrays.fill(password, '\0');
    }
  }

  /** Where the rows go: a text format on stdout or --output, or an Arrow file. */
  private abstract static class Output implements AutoCloseable {
    abstract RowSink sink();

    void newStatement() {}

    void endPage() throws IOException {}

    @Override
    public abstract void close() throws IOException;

    static Output open(QueryOptions options, PrintStream stdout, PrintStream err)
        throws IOException {
      if (options.format().equals("arrow")) {
        return new ArrowFile(options, err);
      }
      PrintStream out =
          options.output() == null
              ? stdout
              : new PrintStream(
                  new BufferedOutputStream(Files.newOutputStream(options.output()), 1 << 16),
                  false,
                  StandardCharsets.UTF_8);
      return new Text(options.format(), options.jsonNumbers(), out, out != stdout);
    }
  }

  private static final class Text extends Output {
    private final PrintStream out;
    private final boolean ownsOut;
    private final RowSink sink;

    Text(String format, boolean jsonNumbers, PrintStream out, boolean ownsOut) {
      this.out = out;
      this.ownsOut = ownsOut;
      this.sink =
          switch (format) {
            case "jsonl" -> RowLinesSink.jsonLines(out, jsonNumbers);
            case "csv" -> RowLinesSink.csv(out);
            case "vertical" -> TableSink.statementPages(out, true);
            default -> TableSink.statementPages(out, false);
          };
    }

    @Override
    RowSink sink() {
      return sink;
    }

    @Override
    void newStatement() {
      if (sink instanceof RowLinesSink lines) {
        lines.newStatement();
      } else if (sink instanceof TableSink table) {
        table.newStatement();
      }
    }

    @Override
    void endPage() {
      out.flush();
    }

    @Override
    public void close() {
      out.flush();
      if (ownsOut) {
        out.close();
      }
    }
  }

  /**
   * {@code --format arrow}: one record batch per page, or pages gathered into batches of at least
   * {@code --arrow-batch-rows}; another schema opens FILE-2.arrow.
   */
  private static final class ArrowFile extends Output {
    private final ArrowOutput arrow;
    private final RowSink sink;

    ArrowFile(QueryOptions options, PrintStream err) throws IOException {
      Path file = options.output();
      String name = file.getFileName().toString();
      if (!name.endsWith(".arrow")) {
        file = file.resolveSibling(name + ".arrow");
      }
      this.arrow =
          new ArrowOutput(
              file,
              true,
              null,
              err,
              options.streaming() ? STREAMING_BATCH_ROWS : 0,
              options.arrow().batchRows(),
              options.arrow().mapping());
      this.sink = arrow.sinkFor("query", 0, null);
    }

    @Override
    RowSink sink() {
      return sink;
    }

    @Override
    public void close() throws IOException {
      arrow.close();
    }
  }

  /** The progress line on stderr: pages, rows, MB received, rows/s. */
  static final class Progress {
    private final PrintStream err;
    private final boolean on;
    private boolean shown;

    /** The length of the line shown. */
    private int length;

    Progress(PrintStream err, boolean on) {
      this.err = err;
      this.on = on;
    }

    /** Whether file descriptor {@code fd} is a terminal (Linux: where /proc says it points). */
    @SuppressWarnings("SystemConsoleNull") // Java 17: null when there is no terminal
    static boolean isTerminal(int fd) {
      try {
        String target = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
      } catch (IOException | UnsupportedOperationException | SecurityException e) {
        return System.console() != null;
      }
    }

    void page(int pages, long rows, long bytes, long nanos) {
      if (!on) {
        return;
      }
      double seconds = Math.max(nanos, 1) / 1e9;
      String line =
          String.format(
              Locale.ROOT,
              "%d %s, %,d %s, %.1f MB, %,.0f rows/s",
              pages,
              pages == 1 ? "page" : "pages",
              rows,
              rows == 1 ? "row" : "rows",
              bytes / 1e6,
              rows / seconds);
      clear();
      err.print("\r" + line);
      err.flush();
      length = line.length();
      shown = true;
    }

    /** Erases the progress line, if one is shown, so that the output does not run into it. */
    void clear() {
      if (shown) {
        err.print("\r" + " ".repeat(length) + "\r");
        err.flush();
        shown = false;
      }
    }

    void end() {
      clear();
    }
  }
}
