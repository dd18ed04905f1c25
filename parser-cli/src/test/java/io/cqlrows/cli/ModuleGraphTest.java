package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The modules' graph, checked on the main classes of every module (the command line depends on all
 * of them): core &lt;- netty &lt;- {capture, client, arrow} &lt;- cli, no package in two modules,
 * and cqlrows-netty without capture, replay or client code.
 */
class ModuleGraphTest {
  /** What each module's main classes may use besides their own. */
  private static final Map<String, Set<String>> ALLOWED =
      Map.of(
          "core", Set.of(),
          "netty", Set.of("core"),
          "capture", Set.of("core", "netty"),
          "client", Set.of("core", "netty"),
          "arrow", Set.of("core", "netty"),
          "cli", Set.of("core", "netty", "capture", "client", "arrow"));

  /** A module's main classes: its target/classes directory or its jar (not its test-jar). */
  private static final Pattern MODULE =
      Pattern.compile("parser-(\\w+)/target/classes/|cqlrows-(\\w+)-[^/]*?(?<!-tests)\\.jar");

  private static JavaClasses classes;

  @BeforeAll
  static void importEveryModule() {
    classes =
        new ClassFileImporter()
            .withImportOption(location -> module(location) != null)
            .importPackages("io.cqlrows");
  }

  private static String module(Location location) {
    Matcher m = MODULE.matcher(location.asURI().toString());
    if (!m.find()) {
      return null;
    }
    return m.group(1) != null ? m.group(1) : m.group(2);
  }

  private static String module(JavaClass c) {
    return c.getSource()
        .map(s -> module(Location.of(s.getUri())))
        .orElseThrow(() -> new AssertionError("no source for " + c.getName()));
  }

  @Test
  void importsEveryModule() {
    Set<String> modules = new TreeSet<>();
    for (JavaClass c : classes) {
      modules.add(module(c));
    }
    assertEquals(new TreeSet<>(ALLOWED.keySet()), modules);
  }

  @Test
  void noPackageIsInTwoModules() {
    Map<String, Set<String>> modulesByPackage = new TreeMap<>();
    for (JavaClass c : classes) {
      modulesByPackage.computeIfAbsent(c.getPackageName(), p -> new TreeSet<>()).add(module(c));
    }
    Map<String, Set<String>> split = new TreeMap<>();
    modulesByPackage.forEach(
        (pkg, modules) -> {
          if (modules.size() > 1) {
            split.put(pkg, modules);
          }
        });
    assertEquals(Map.of(), split, "packages whose classes come from more than one module");
  }

  @Test
  void modulesDependOnlyDownTheGraph() {
    Set<String> violations = new TreeSet<>();
    for (JavaClass c : classes) {
      String from = module(c);
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        JavaClass target = d.getTargetClass().getBaseComponentType();
        if (!target.getName().startsWith("io.cqlrows.") || !classes.contain(target.getName())) {
          continue;
        }
        String to = module(target);
        if (!to.equals(from) && !ALLOWED.get(from).contains(to)) {
          violations.add(from + " -> " + to + ": " + c.getName() + " uses " + target.getName());
        }
      }
    }
    assertEquals(Set.of(), violations);
  }

  @Test
  void nettyHoldsNoCaptureReplayOrClientCode() {
    for (JavaClass c : classes) {
      String module = module(c);
      String pkg = c.getPackageName();
      if (module.equals("netty")) {
        assertTrue(pkg.startsWith("io.cqlrows.netty"), c.getName());
        assertTrue(!pkg.matches(".*\\.(pcap|replay|capture|client)(\\..*)?"), c.getName());
      } else {
        assertTrue(!pkg.startsWith("io.cqlrows.netty"), c.getName() + " in " + module);
      }
    }
  }
}
