package io.cqlrows.netty;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.compression.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.CorpusAssertions;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The README's quick start is real code: this test takes the {@code java} block between the
 * {@code quickstart:begin} and {@code quickstart:end} markers of {@code README.md}, compiles it
 * against the test classpath, and runs it on a RESULT body of the corpus (protocol v4, with and
 * without LZ4), taken from a {@link Frame} of {@link BytesToFrameDecoder} as the quick start
 * says. The rows it returns must be the ones the Java driver decoded from the same bytes ({@code
 * results.jsonl}), its matrix must hold the same floats, and the frame must be untouched
 * afterwards: the reader borrows the body.
 */
class ReadmeQuickStartTest {
  private static final String BEGIN = "<!-- quickstart:begin -->";
  private static final String END = "<!-- quickstart:end -->";
  private static final Pattern JAVA_BLOCK =
      Pattern.compile("\\A\\s*```java\\n(.*?)\\n```\\s*\\z", Pattern.DOTALL);
  private static final Pattern PUBLIC_CLASS =
      Pattern.compile("^public (?:final )?class (\\w+)", Pattern.MULTILINE);
  /** A corpus result with the quick start's columns: {@code id int, v vector<float, 128>}. */
  private static final String QUERY = "SELECT id, v FROM corpus.vec128 WHERE id IN (0, 1, 2)";
  private static final int DIMENSION = 128;

  @TempDir static Path work;
  private static URLClassLoader loader;
  private static Class<?> quickStart;

  @BeforeAll
  static void compileTheQuickStart() throws IOException, ClassNotFoundException {
    String source = quickStartSource();
    assertFalse(source.startsWith("package ") || source.contains("\npackage "),
        "the quick start has no package declaration");
    Matcher name = PUBLIC_CLASS.matcher(source);
    assertTrue(name.find(), "the quick start declares a public class");
    Path sourceFile = work.resolve("src").resolve(name.group(1) + ".java");
    Path classes = work.resolve("classes");
    Files.createDirectories(sourceFile.getParent());
    Files.createDirectories(classes);
    Files.writeString(sourceFile, source, UTF_8);

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "a JDK with javac runs the tests");
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
        UTF_8)) {
      // -Xlint:-path: Maven's test classpath may name directories that do not exist
      List<String> options = List.of("-classpath", System.getProperty("java.class.path"),
          "-d", classes.toString(), "-encoding", "UTF-8", "-proc:none",
          "-Xlint:all", "-Xlint:-path");
      boolean compiled = javac.getTask(null, files, diagnostics, options, null,
          files.getJavaFileObjects(sourceFile)).call();
      String report = diagnostics.getDiagnostics().stream()
          .map(d -> d.getKind() + " at line " + d.getLineNumber() + ": "
              + d.getMessage(Locale.ROOT))
          .collect(Collectors.joining("\n"));
      assertTrue(compiled, () -> "the README's quick start does not compile:\n" + report
          + "\n--- source ---\n" + source);
      assertTrue(diagnostics.getDiagnostics().stream()
              .noneMatch(d -> d.getKind() == Diagnostic.Kind.WARNING
                  || d.getKind() == Diagnostic.Kind.MANDATORY_WARNING),
          () -> "the README's quick start compiles with warnings:\n" + report);
    }
    loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
        ReadmeQuickStartTest.class.getClassLoader());
    quickStart = loader.loadClass(name.group(1));
  }

  @AfterAll
  static void closeTheLoader() throws IOException {
    if (loader != null) {
      loader.close();
    }
  }

  /** The quick start's source: the java block between the markers of the repository's README. */
  private static String quickStartSource() throws IOException {
    Path readme = Path.of(System.getProperty("basedir", ".")).resolve("../README.md");
    String text = Files.readString(readme, UTF_8).replace("\r\n", "\n");
    int begin = text.indexOf(BEGIN);
    int end = text.indexOf(END);
    assertTrue(begin >= 0 && end > begin, "README.md has " + BEGIN + " ... " + END);
    assertEquals(-1, text.indexOf(BEGIN, begin + 1), "one quick start in README.md");
    Matcher block = JAVA_BLOCK.matcher(text.substring(begin + BEGIN.length(), end));
    assertTrue(block.matches(), "the quick start markers hold exactly one ```java block");
    return block.group(1) + "\n";
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"a-v4, NONE", "d-v4-lz4, LZ4"})
  void readsTheRowsTheDriverRead(String capture, Compression compression) throws Throwable {
    JsonNode expected = CorpusAssertions.expectedResults(capture, "conn-01").stream()
        .filter(r -> QUERY.equals(r.get("query").asText()))
        .findFirst().orElseThrow();
    Object app = quickStart.getConstructor().newInstance();
    Method embeddingsById = quickStart.getMethod("embeddingsById", ByteBuf.class);
    Method embeddingMatrix = quickStart.getMethod("embeddingMatrix", ByteBuf.class);

    Frame frame = resultFrame(capture, compression, expected.get("frame").asInt());
    try {
      ByteBuf body = frame.body();
      int readerIndex = body.readerIndex();
      int writerIndex = body.writerIndex();
      Map<?, ?> byId = (Map<?, ?>) invoke(embeddingsById, app, body);
      float[] matrix = (float[]) invoke(embeddingMatrix, app, body);
      assertEquals(readerIndex, body.readerIndex(), "the body is borrowed: reader index");
      assertEquals(writerIndex, body.writerIndex(), "the body is borrowed: writer index");
      assertEquals(1, frame.refCnt(), "the body is borrowed: the frame is still ours");

      JsonNode rows = expected.get("rows");
      assertEquals(3, rows.size());
      List<Integer> ids = new ArrayList<>();
      rows.forEach(row -> ids.add(row.get(0).asInt()));
      assertEquals(ids, new ArrayList<>(byId.keySet()), "ids in wire order");
      assertEquals(rows.size() * DIMENSION, matrix.length, "matrix of rows x " + DIMENSION);
      for (int r = 0; r < rows.size(); r++) {
        float[] v = (float[]) byId.get(ids.get(r));
        JsonNode expectedV = rows.get(r).get(1);
        assertEquals(DIMENSION, v.length);
        for (int j = 0; j < DIMENSION; j++) {
          String where = "id " + ids.get(r) + " v[" + j + "]";
          assertEquals(expectedV.get(j).asText(), Float.toString(v[j]), where);
          assertEquals(Float.floatToRawIntBits(v[j]),
              Float.floatToRawIntBits(matrix[r * DIMENSION + j]), where + " in the matrix");
        }
      }
    } finally {
      frame.release();
    }
  }

  private static Object invoke(Method method, Object target, Object arg) throws Throwable {
    try {
      return method.invoke(target, arg);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * Frame number {@code index} (from 0) of the capture's server-to-client bytes, decoded by a
   * {@link BytesToFrameDecoder} from leak-tracked input; every other frame is released. The caller
   * releases the one returned.
   */
  private static Frame resultFrame(String capture, Compression compression, int index) {
    byte[] bytes = Corpus.bytes(capture, "conn-01.s2c.bin");
    EmbeddedChannel channel =
        new EmbeddedChannel(new BytesToFrameDecoder(ParseLimits.defaults(), compression));
    channel.writeInbound(channel.alloc().buffer(bytes.length).writeBytes(bytes));
    Frame found = null;
    int i = 0;
    for (Frame frame; (frame = channel.readInbound()) != null; i++) {
      if (i == index) {
        found = frame;
      } else {
        frame.release();
      }
    }
    assertFalse(channel.finishAndReleaseAll(), "nothing left in the channel");
    assertNotNull(found, "frame " + index + " of " + capture);
    if (found.opcode() != Opcode.RESULT) {
      found.release();
      throw new AssertionError("frame " + index + " of " + capture + " is not a RESULT: " + found);
    }
    return found;
  }
}
