package io.cqlrows.testing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The architecture rules every module's tests apply to its main classes (ArchUnit): no package
 * cycles, and every public top-level type listed in {@code docs/api.md}, the module's public API,
 * unsupported internals included under their own heading.
 */
public final class Architecture {
  /** A fully qualified cqlrows type name in backticks: {@code `io.cqlrows.core.ResultReader`}. */
  private static final Pattern LISTED =
      Pattern.compile("`(io\\.cqlrows(?:\\.[a-z]\\w*)+\\.[A-Z]\\w*)`");

  private Architecture() {}

  /** The main classes of the module under test ({@code target/classes}), without tests. */
  public static JavaClasses mainClasses(String rootPackage) {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
        .importPackages(rootPackage);
  }

  /** No cycle between the packages of cqlrows (each package is one slice). */
  public static ArchRule noPackageCycles() {
    return slices().matching("io.cqlrows.(**)").should().beFreeOfCycles().allowEmptyShould(true);
  }

  /**
   * Classes depend only on their own packages ({@code ownPackage} and below), the JDK (incubating
   * Vector API included) and {@code netty-buffer}: parser-core's rule.
   */
  public static ArchRule onlyTheJdkAndNettyBuffer(String ownPackage) {
    // netty-buffer's own dependency, netty-common, provides reference counting
    return classes()
        .should()
        .onlyDependOnClassesThat(
            com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage(
                    ownPackage + "..", "java..", "jdk.incubator.vector..", "io.netty.buffer..")
                .or(
                    com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf(
                        io.netty.util.ReferenceCounted.class,
                        io.netty.util.AbstractReferenceCounted.class,
                        io.netty.util.IllegalReferenceCountException.class)));
  }

  /** The fully qualified type names {@code docs/api.md} lists. */
  public static Set<String> listedTypes() {
    Path api = repositoryRoot().resolve("docs/api.md");
    String text;
    try {
      text = Files.readString(api);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<String> listed = new TreeSet<>();
    Matcher m = LISTED.matcher(text);
    while (m.find()) {
      listed.add(m.group(1));
    }
    return listed;
  }

  /** The public top-level types of {@code classes} that {@code listed} does not name, sorted. */
  public static Set<String> unlisted(JavaClasses classes, Set<String> listed) {
    Set<String> missing = new TreeSet<>();
    for (JavaClass c : classes) {
      if (c.getModifiers().contains(JavaModifier.PUBLIC)
          && c.isTopLevelClass()
          && !c.getSimpleName().equals("package-info")
          && !listed.contains(c.getName())) {
        missing.add(c.getName());
      }
    }
    return missing;
  }

  /**
   * The names {@code listed} gives under {@code rootPackage} that are not public top-level types of
   * {@code classes}: a list that has gone stale, sorted.
   */
  public static Set<String> staleListings(
      JavaClasses classes, Set<String> listed, String rootPackage) {
    Set<String> stale = new TreeSet<>();
    for (String name : listed) {
      if (!name.startsWith(rootPackage + ".")) {
        continue;
      }
      boolean present =
          classes.contain(name)
              && classes.get(name).getModifiers().contains(JavaModifier.PUBLIC)
              && classes.get(name).isTopLevelClass();
      if (!present) {
        stale.add(name);
      }
    }
    return stale;
  }

  /** The repository's root: the parent of the module directory Surefire runs in. */
  public static Path repositoryRoot() {
    Path module = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
    Path root = module.getParent();
    if (root == null || !Files.isRegularFile(root.resolve("docs/api.md"))) {
      throw new IllegalStateException("no docs/api.md beside " + module);
    }
    return root;
  }
}
