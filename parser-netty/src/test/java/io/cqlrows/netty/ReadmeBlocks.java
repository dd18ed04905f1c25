package io.cqlrows.netty;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The README's code is real code: a {@code java} block between {@code <!-- name:begin -->} and
 * {@code <!-- name:end -->} markers of {@code README.md} (or of another Markdown file of the
 * repository, such as {@code docs/netty.md}), compiled against the test classpath without warnings
 * and loaded, for a test to run.
 */
public final class ReadmeBlocks {
  private static final Pattern JAVA_BLOCK =
      Pattern.compile("\\A\\s*```java\\n(.*?)\\n```\\s*\\z", Pattern.DOTALL);
  private static final Pattern PUBLIC_CLASS =
      Pattern.compile("^public (?:final )?class (\\w+)", Pattern.MULTILINE);
  private static final Pattern IMPORT = Pattern.compile("^import ([\\w.]+);", Pattern.MULTILINE);

  private ReadmeBlocks() {}

  /** The source of the java block between the {@code name} markers of the repository's README. */
  public static String source(String name) throws IOException {
    return source("README.md", name);
  }

  /**
   * The source of the java block between the {@code name} markers of {@code markdown}, a path from
   * the repository's root ({@code "docs/netty.md"}).
   */
  public static String source(String markdown, String name) throws IOException {
    String begin = "<!-- " + name + ":begin -->";
    String end = "<!-- " + name + ":end -->";
    Path file = Path.of(System.getProperty("basedir", ".")).resolve("..").resolve(markdown);
    String text = Files.readString(file, UTF_8).replace("\r\n", "\n");
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    assertTrue(from >= 0 && to > from, markdown + " has " + begin + " ... " + end);
    assertEquals(-1, text.indexOf(begin, from + 1), "one " + name + " block in " + markdown);
    Matcher block = JAVA_BLOCK.matcher(text.substring(from + begin.length(), to));
    assertTrue(block.matches(), "the " + name + " markers hold exactly one ```java block");
    return block.group(1) + "\n";
  }

  /** The types {@code source} imports from {@code prefix}, e.g. {@code "io.cqlrows."}. */
  public static List<String> imports(String source, String prefix) {
    return IMPORT
        .matcher(source)
        .results()
        .map(m -> m.group(1))
        .filter(i -> i.startsWith(prefix))
        .collect(Collectors.toList());
  }

  /**
   * Compiles {@code source}, a public class in the default package, into {@code work} and loads it.
   * The caller closes the returned class's loader.
   */
  public static Class<?> compile(String source, Path work)
      throws IOException, ClassNotFoundException {
    assertFalse(
        source.startsWith("package ") || source.contains("\npackage "),
        "the block has no package declaration");
    Matcher name = PUBLIC_CLASS.matcher(source);
    assertTrue(name.find(), "the block declares a public class");
    Path sourceFile = work.resolve("src").resolve(name.group(1) + ".java");
    Path classes = work.resolve("classes");
    Files.createDirectories(sourceFile.getParent());
    Files.createDirectories(classes);
    Files.writeString(sourceFile, source, UTF_8);

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "a JDK with javac runs the tests");
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, UTF_8)) {
      // -Xlint:-path: Maven's test classpath may name directories that do not exist
      List<String> options =
          List.of(
              "-classpath",
              System.getProperty("java.class.path"),
              "-d",
              classes.toString(),
              "-encoding",
              "UTF-8",
              "-proc:none",
              "-Xlint:all",
              "-Xlint:-path");
      boolean compiled =
          javac
              .getTask(
                  null, files, diagnostics, options, null, files.getJavaFileObjects(sourceFile))
              .call();
      String report =
          diagnostics.getDiagnostics().stream()
              .map(
                  d ->
                      d.getKind()
                          + " at line "
                          + d.getLineNumber()
                          + ": "
                          + d.getMessage(Locale.ROOT))
              .collect(Collectors.joining("\n"));
      assertTrue(
          compiled,
          () ->
              "the README's "
                  + name.group(1)
                  + " does not compile:\n"
                  + report
                  + "\n--- source ---\n"
                  + source);
      assertTrue(
          diagnostics.getDiagnostics().stream()
              .noneMatch(
                  d ->
                      d.getKind() == Diagnostic.Kind.WARNING
                          || d.getKind() == Diagnostic.Kind.MANDATORY_WARNING),
          () -> "the README's " + name.group(1) + " compiles with warnings:\n" + report);
    }
    @SuppressWarnings("resource") // closed by the caller, through the class
    URLClassLoader loader =
        new URLClassLoader(
            new URL[] {classes.toUri().toURL()}, ReadmeBlocks.class.getClassLoader());
    return loader.loadClass(name.group(1));
  }

  /** Closes the loader {@link #compile} made for {@code type}. */
  public static void close(Class<?> type) throws IOException {
    if (type != null && type.getClassLoader() instanceof URLClassLoader loader) {
      loader.close();
    }
  }
}
