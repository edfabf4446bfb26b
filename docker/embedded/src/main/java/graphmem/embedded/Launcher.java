package graphmem.embedded;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;
import org.neo4j.server.configuration.ConfigurableServerModules;
import org.neo4j.server.configuration.ServerSettings;

/**
 * Runs Neo4j Community embedded with its Bolt connector on 127.0.0.1, and optionally its
 * HTTP connector serving Neo4j Browser (also on 127.0.0.1). The same source compiles and runs
 * against Neo4j 5.26 (Java 17+) and 2026.08 (Java 21+): the embedded API, the connector and
 * server settings used here are unchanged between them.
 *
 * Arguments: --data DIR --port N [--http-port N] (without --http-port HTTP stays off).
 * Environment: GRAPHMEM_NEO4J_PASSWORD (required, never printed; set on the data folder's
 *              first start only, when Neo4j still asks for the initial password change),
 *              GRAPHMEM_BROWSER_POST_CONNECT (optional: browser.post_connect_cmd),
 *              GRAPHMEM_NEO4J_PAGECACHE (e.g. "512m"), GRAPHMEM_NEO4J_TX_MEMORY (e.g. "2g"),
 *              GRAPHMEM_NEO4J_CONF (optional: a file of neo4j.conf settings, "name=value" lines).
 * Prints "GRAPHMEM_BOLT_READY port=N [http=M] version=V" once Bolt accepts connections,
 * stops cleanly on SIGTERM.
 */
public final class Launcher {

    private Launcher() {}

    public static void main(String[] args) throws Exception {
        String data = null;
        int port = 7687;
        int httpPort = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--http-port" -> httpPort = Integer.parseInt(args[++i]);
                default -> fail("unknown argument: " + args[i]);
            }
        }
        if (data == null) {
            fail("--data DIR is required");
        }
        String password = System.getenv("GRAPHMEM_NEO4J_PASSWORD");
        if (password == null || password.length() < 8) {
            fail("GRAPHMEM_NEO4J_PASSWORD must be set (8 characters or more)");
        }
        Path home = Path.of(data).toAbsolutePath();

        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home)
                .setConfig(GraphDatabaseSettings.pagecache_memory,
                        ByteUnit.parse(envOr("GRAPHMEM_NEO4J_PAGECACHE", "1g")))
                .setConfig(GraphDatabaseSettings.memory_transaction_global_max_size,
                        ByteUnit.parse(envOr("GRAPHMEM_NEO4J_TX_MEMORY", "4g")))
                // a lock wait ends in a retryable LockAcquisitionTimeout instead of outlasting the
                // driver's 120 s read timeout; an abandoned transaction is killed (docs/reliability.md)
                .setConfig(GraphDatabaseSettings.lock_acquisition_timeout, Duration.ofSeconds(10))
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(10));
        String conf = System.getenv("GRAPHMEM_NEO4J_CONF");
        if (conf != null && !conf.isBlank()) {
            // neo4j.conf-style settings of the caller's: they override the defaults above, not
            // the connectors and authentication set below (loopback only, password required)
            Path file = Path.of(conf).toAbsolutePath();
            if (!java.nio.file.Files.isRegularFile(file)) {
                fail("GRAPHMEM_NEO4J_CONF names no file: " + file);
            }
            builder.loadPropertiesFromFile(file);
        }
        builder.setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(GraphDatabaseSettings.auth_enabled, true);
        if (httpPort > 0) {
            // The embedded DBMS starts Neo4j's web server (Jetty, from neo4j-server) whenever the
            // HTTP connector is on; its browser module serves the neo4j-browser jar's browser/
            // folder from the classpath. Only that module is enabled: no HTTP Cypher endpoints.
            builder.setConfig(HttpConnector.enabled, true)
                    .setConfig(HttpConnector.listen_address, new SocketAddress("127.0.0.1", httpPort))
                    .setConfig(HttpConnector.advertised_address, new SocketAddress("127.0.0.1", httpPort))
                    .setConfig(ServerSettings.http_enabled_modules, Set.of(ConfigurableServerModules.BROWSER))
                    // Browser would otherwise report usage to Neo4j; this machine is offline anyway
                    .setConfig(ServerSettings.allow_telemetry, false)
                    .setConfig(ServerSettings.browser_post_connect_cmd, envOr("GRAPHMEM_BROWSER_POST_CONNECT", ""));
        } else {
            builder.setConfig(HttpConnector.enabled, false);
        }
        DatabaseManagementService dbms = builder.build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("GRAPHMEM_STOPPING");
            dbms.shutdown();
            System.out.println("GRAPHMEM_STOPPED");
            stopped.countDown();
        }, "graphmem-shutdown"));

        setInitialPassword(dbms, password);
        waitForPort(port, Duration.ofSeconds(60));
        if (httpPort > 0) {
            waitForPort(httpPort, Duration.ofSeconds(60));
        }
        System.out.println("GRAPHMEM_BOLT_READY port=" + port + (httpPort > 0 ? " http=" + httpPort : "")
                + " version=" + neo4jVersion(dbms));
        System.out.flush();
        stopped.await();
    }

    /**
     * Sets the neo4j user's password through the system database, on the data folder's first
     * start only (a new store's neo4j user must change its default password). A later start
     * keeps the password the folder already has: the caller stores it beside the data.
     */
    private static void setInitialPassword(DatabaseManagementService dbms, String password) {
        GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        boolean firstStart = system.executeTransactionally(
                "SHOW USERS YIELD user, passwordChangeRequired WHERE user = 'neo4j' RETURN passwordChangeRequired",
                Map.of(), r -> r.hasNext() && Boolean.TRUE.equals(r.next().get("passwordChangeRequired")));
        if (firstStart) {
            system.executeTransactionally(
                    "ALTER USER neo4j IF EXISTS SET PASSWORD $password CHANGE NOT REQUIRED",
                    Map.of("password", password));
        }
    }

    private static String neo4jVersion(DatabaseManagementService dbms) {
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        return db.executeTransactionally(
                "CALL dbms.components() YIELD versions RETURN versions[0] AS v",
                Map.of(), r -> r.hasNext() ? String.valueOf(r.next().get("v")) : "?");
    }

    private static void waitForPort(int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (java.io.IOException e) {
                Thread.sleep(100);
            }
        }
        fail("nothing accepted connections on 127.0.0.1:" + port);
    }

    private static String envOr(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }

    private static void fail(String message) {
        System.err.println("graphmem-embedded: " + message);
        System.exit(2);
    }
}
