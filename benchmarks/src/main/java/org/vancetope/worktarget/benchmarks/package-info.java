/**
 * Benchmark mains. Each one measures a WorkTarget operation beside its reference (GNU tools, a bare
 * {@code ProcessBuilder}, a plain Netty harness, the machine's SHA-256 + base64 ceiling) in the same
 * run and prints both figures and their ratio. Run them with
 * {@code mvn -B -q -pl benchmarks -am package -DskipTests} and then
 * {@code java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" <main class>}.
 */
package org.vancetope.worktarget.benchmarks;
