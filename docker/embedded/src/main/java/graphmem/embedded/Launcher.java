package graphmem.embedded;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;

/**
 * Runs Neo4j Community embedded with its Bolt connector on 127.0.0.1.
 *
 * Arguments: --data DIR --port N (0 or absent: the port is chosen by the caller).
 * Environment: GRAPHMEM_NEO4J_PASSWORD (required, never printed),
 *              GRAPHMEM_NEO4J_PAGECACHE (e.g. "512m"), GRAPHMEM_NEO4J_TX_MEMORY (e.g. "2g").
 * Prints "GRAPHMEM_BOLT_READY port=N" once Bolt accepts connections, stops cleanly on SIGTERM.
 */
public final class Launcher {

    private Launcher() {}

    public static void main(String[] args) throws Exception {
        String data = null;
        int port = 7687;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
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

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                .setConfig(GraphDatabaseSettings.pagecache_memory,
                        ByteUnit.parse(envOr("GRAPHMEM_NEO4J_PAGECACHE", "1g")))
                .setConfig(GraphDatabaseSettings.memory_transaction_global_max_size,
                        ByteUnit.parse(envOr("GRAPHMEM_NEO4J_TX_MEMORY", "4g")))
                // a lock wait ends in a retryable LockAcquisitionTimeout instead of outlasting the
                // driver's 120 s read timeout; an abandoned transaction is killed (docs/reliability.md)
                .setConfig(GraphDatabaseSettings.lock_acquisition_timeout, Duration.ofSeconds(10))
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(10))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("GRAPHMEM_STOPPING");
            dbms.shutdown();
            System.out.println("GRAPHMEM_STOPPED");
            stopped.countDown();
        }, "graphmem-shutdown"));

        setInitialPassword(dbms, password);
        waitForBolt(port, Duration.ofSeconds(60));
        System.out.println("GRAPHMEM_BOLT_READY port=" + port + " version=" + neo4jVersion(dbms));
        System.out.flush();
        stopped.await();
    }

    /** Sets the neo4j user's password through the system database (first start only). */
    private static void setInitialPassword(DatabaseManagementService dbms, String password) {
        GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        system.executeTransactionally(
                "ALTER USER neo4j IF EXISTS SET PASSWORD $password CHANGE NOT REQUIRED",
                java.util.Map.of("password", password));
    }

    private static String neo4jVersion(DatabaseManagementService dbms) {
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        return db.executeTransactionally(
                "CALL dbms.components() YIELD versions RETURN versions[0] AS v",
                java.util.Map.of(), r -> r.hasNext() ? String.valueOf(r.next().get("v")) : "?");
    }

    private static void waitForBolt(int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (java.io.IOException e) {
                Thread.sleep(100);
            }
        }
        fail("Bolt did not accept connections on 127.0.0.1:" + port);
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
