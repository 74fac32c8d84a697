import Foundation

/// docker-compose.yml (with an override) as the processes it runs.
enum ComposeProject {
    struct Project {
        var processes: [DeployedProcess]
        var hosts: [String: String]
        /// Every service built from the project image, started or not, with its document.
        var services: [String: [String: Any]]
    }

    static func load(_ files: [String], variables: [String: String]) throws -> [String: Any] {
        var merged: Any = [String: Any]()
        for file in files {
            guard
                let document = try DeploymentFiles.documents(DeploymentFiles.path(file), interpolating: variables).first
            else { throw DeploymentError("\(file) is empty") }
            merged = DeploymentFiles.merge(merged, document)
        }
        return mapping(merged)
    }

    static func isProjectImage(_ service: [String: Any]) -> Bool {
        service["build"] != nil || (text(service["image"]) ?? "").hasPrefix("iap-pipeline")
    }

    /// The services' processes; `kafka` and `redis` (by image) are the stand-ins' addresses.
    static func project(
        _ files: [String], variables: [String: String], brokers: String, redis: String, directory: String
    ) throws -> Project {
        let document = try load(files, variables: variables)
        let services = mapping(document["services"]).compactMapValues { $0 as? [String: Any] }
        let volumes = mapping(document["volumes"])
        let secrets = mapping(document["secrets"])
        let file = files.joined(separator: " + ")
        var hosts: [String: String] = [:]
        for (name, service) in services {
            let image = text(service["image"]) ?? ""
            if image.hasPrefix("apache/kafka") {
                let listeners = text(mapping(service["environment"])["KAFKA_ADVERTISED_LISTENERS"]) ?? ""
                for listener in listeners.split(separator: ",") {
                    let address = listener.split(separator: "/").last.map(String.init) ?? ""
                    if address.hasPrefix(name + ":") { hosts[address] = brokers }
                }
            } else if image.hasPrefix("redis") {
                hosts["\(name):6379"] = redis
            }
        }
        let enabled = services.filter { isProjectImage($0.value) && sequence($0.value["profiles"]).isEmpty }
        var processes: [DeployedProcess] = []
        for (name, service) in enabled.sorted(by: { $0.key < $1.key }) {
            let command: [String]
            if let list = service["command"] as? [Any] {
                command = list.compactMap { text($0) }
            } else {
                command = (text(service["command"]) ?? "").split(separator: " ").map(String.init)
            }
            var environment: [String: String] = [:]
            if let list = service["environment"] as? [Any] {
                for entry in list.compactMap({ text($0) }) {
                    let parts = entry.split(separator: "=", maxSplits: 1)
                    environment[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
                }
            } else {
                for (key, value) in mapping(service["environment"]) { environment[key] = text(value) ?? "" }
            }
            var ports: Set<Int> = []
            for entry in sequence(service["ports"]) + sequence(service["expose"]) {
                let container = (text(entry) ?? "").split(separator: ":").last.map(String.init) ?? ""
                if let port = Int(container.split(separator: "/").first ?? "") { ports.insert(port) }
            }
            var readiness: (port: Int, path: String)?
            let check = sequence(mapping(service["healthcheck"])["test"]).compactMap { text($0) }
            if let url = check.first(where: { $0.hasPrefix("http://") }).flatMap(URLComponents.init(string:)),
                let port = url.port
            {
                readiness = (port, url.path)
                ports.insert(port)
            } else if text(service["restart"]) != "no" {
                throw DeploymentError("\(file): \(name) runs for good but has no HTTP healthcheck to be ready by")
            }
            var paths: [String: String] = [:]
            for entry in sequence(service["volumes"]).compactMap({ text($0) }) {
                let parts = entry.split(separator: ":").map(String.init)
                guard parts.count >= 2 else { continue }
                if volumes.keys.contains(parts[0]) {
                    let local = directory + "/volumes/" + parts[0]
                    try FileManager.default.createDirectory(atPath: local, withIntermediateDirectories: true)
                    paths[parts[1]] = local
                } else {
                    paths[parts[1]] = URL(fileURLWithPath: DeploymentFiles.root + "/" + parts[0]).standardized.path
                }
            }
            for secret in sequence(service["secrets"]).compactMap({ text($0) }) {
                guard let source = text(mapping(secrets[secret])["file"]) else {
                    throw DeploymentError("\(file): \(name) uses secret \(secret), which has no file")
                }
                paths["/run/secrets/" + secret] =
                    source.hasPrefix("/") ? source : DeploymentFiles.root + "/" + source
            }
            // The image's WORKDIR /app holds pipelines/: relative paths resolve there.
            paths["pipelines"] = DeploymentFiles.root + "/pipelines"
            paths["/app"] = DeploymentFiles.root
            let dependencies =
                (service["depends_on"] as? [String: Any]).map { Array($0.keys) }
                ?? sequence(service["depends_on"]).compactMap { text($0) }
            processes.append(
                DeployedProcess(
                    name: name, file: file, command: command, environment: environment, ports: ports,
                    readiness: readiness, paths: paths, dependsOn: dependencies.filter { enabled[$0] != nil }))
        }
        return Project(processes: processes, hosts: hosts, services: services.filter { isProjectImage($0.value) })
    }
}

/// A rendered Kubernetes overlay as the processes its Deployments run.
enum KubernetesProject {
    struct Project {
        var processes: [DeployedProcess]
        var hosts: [String: String]
        var aliases: [String: (process: String, port: Int)]
    }

    static func resources(_ rendered: [[String: Any]], kind: String) -> [String: [String: Any]] {
        var result: [String: [String: Any]] = [:]
        for document in rendered where text(document["kind"]) == kind {
            if let name = text(mapping(document["metadata"])["name"]) { result[name] = document }
        }
        return result
    }

    /// `overlay`: the kustomization it was rendered from, for messages. `standIns`: the Secrets
    /// created out of band (`kubectl create secret`), by name and key.
    static func project(
        _ rendered: [[String: Any]], overlay: String, standIns: [String: [String: Data]], brokers: String,
        directory: String
    ) throws -> Project {
        let configMaps = resources(rendered, kind: "ConfigMap").mapValues { document in
            mapping(document["data"]).compactMapValues { text($0).map { Data($0.utf8) } }
        }
        var secrets = standIns
        for (name, document) in resources(rendered, kind: "Secret") {
            var data = mapping(document["data"]).compactMapValues { text($0).flatMap { Data(base64Encoded: $0) } }
            for (key, value) in mapping(document["stringData"]) { data[key] = Data((text(value) ?? "").utf8) }
            secrets[name] = data
        }
        let file = overlay
        func source(_ kind: String, _ name: String) throws -> [String: Data] {
            let found = kind == "ConfigMap" ? configMaps[name] : secrets[name]
            guard let found else {
                throw DeploymentError(
                    "\(file): \(kind) \(name) is neither in the overlay nor one of the documented secrets "
                        + "(\(standIns.keys.sorted()))")
            }
            return found
        }

        var processes: [DeployedProcess] = []
        var hosts: [String: String] = [:]
        var containerPorts: [String: [String: Int]] = [:]
        let deployments = resources(rendered, kind: "Deployment")
        for (name, deployment) in deployments.sorted(by: { $0.key < $1.key }) {
            let pod = mapping(mapping(mapping(deployment["spec"])["template"])["spec"])
            let containers = sequence(pod["containers"]).compactMap { $0 as? [String: Any] }
            guard containers.count == 1, let container = containers.first else {
                throw DeploymentError("\(file): Deployment \(name) has \(containers.count) containers; expected one")
            }
            let command =
                sequence(container["command"]).compactMap { text($0) }
                + sequence(container["args"]).compactMap { text($0) }
            var environment: [String: String] = [:]
            for entry in sequence(container["envFrom"]).compactMap({ $0 as? [String: Any] }) {
                let (kind, reference) =
                    entry["configMapRef"] != nil
                    ? ("ConfigMap", mapping(entry["configMapRef"])) : ("Secret", mapping(entry["secretRef"]))
                for (key, value) in try source(kind, text(reference["name"]) ?? "") {
                    environment[key] = String(decoding: value, as: UTF8.self)
                }
            }
            for entry in sequence(container["env"]).compactMap({ $0 as? [String: Any] }) {
                guard let key = text(entry["name"]) else { continue }
                let from = mapping(entry["valueFrom"])
                if let value = text(entry["value"]) {
                    environment[key] = value
                } else if let reference = from["configMapKeyRef"] ?? from["secretKeyRef"] {
                    let kind = from["configMapKeyRef"] != nil ? "ConfigMap" : "Secret"
                    let reference = mapping(reference)
                    guard let value = try source(kind, text(reference["name"]) ?? "")[text(reference["key"]) ?? ""]
                    else { throw DeploymentError("\(file): \(name)'s \(key) names a key its \(kind) lacks") }
                    environment[key] = String(decoding: value, as: UTF8.self)
                } else if let field = text(mapping(from["fieldRef"])["fieldPath"]) {
                    environment[key] = field == "metadata.namespace" ? "iap" : "\(name)-5d8f7c9b4-x2x7q"
                }
            }
            var ports: [String: Int] = [:]
            for port in sequence(container["ports"]).compactMap({ $0 as? [String: Any] }) {
                if let number = port["containerPort"] as? Int { ports[text(port["name"]) ?? String(number)] = number }
            }
            containerPorts[name] = ports
            let probe = mapping(mapping(container["readinessProbe"])["httpGet"])
            guard let path = text(probe["path"]), let probePort = text(probe["port"]),
                let readinessPort = ports[probePort] ?? Int(probePort)
            else { throw DeploymentError("\(file): Deployment \(name) has no httpGet readinessProbe on a named port") }

            var paths: [String: String] = [
                "pipelines": DeploymentFiles.root + "/pipelines", "/app": DeploymentFiles.root,
            ]
            var volumeDirectories: [String: String] = [:]
            for volume in sequence(pod["volumes"]).compactMap({ $0 as? [String: Any] }) {
                guard let volumeName = text(volume["name"]) else { continue }
                let local = directory + "/pods/\(name)/\(volumeName)"
                try FileManager.default.createDirectory(atPath: local, withIntermediateDirectories: true)
                var files: [String: Data] = [:]
                if let secret = volume["secret"] as? [String: Any] {
                    files = try source("Secret", text(secret["secretName"]) ?? "")
                } else if let configMap = volume["configMap"] as? [String: Any] {
                    files = try source("ConfigMap", text(configMap["name"]) ?? "")
                } else if volume["emptyDir"] == nil {
                    throw DeploymentError("\(file): \(name)'s volume \(volumeName) is of a kind this test cannot mount")
                }
                for (key, data) in files { try data.write(to: URL(fileURLWithPath: local + "/" + key)) }
                volumeDirectories[volumeName] = local
            }
            for mount in sequence(container["volumeMounts"]).compactMap({ $0 as? [String: Any] }) {
                if let volume = text(mount["name"]), let mountPath = text(mount["mountPath"]),
                    let local = volumeDirectories[volume]
                {
                    paths[mountPath] = local
                }
            }
            for broker in (environment["KAFKA_BROKERS"] ?? "").split(separator: ",") {
                hosts[String(broker)] = brokers
            }
            processes.append(
                DeployedProcess(
                    name: name, file: file, command: command, environment: environment,
                    ports: Set(ports.values), readiness: (readinessPort, path), paths: paths))
        }

        var aliases: [String: (process: String, port: Int)] = [:]
        for (name, service) in resources(rendered, kind: "Service") {
            let spec = mapping(service["spec"])
            let selector = mapping(spec["selector"]).compactMapValues { text($0) }
            let namespace = text(mapping(service["metadata"])["namespace"]) ?? "default"
            guard
                let target = deployments.first(where: { _, deployment in
                    let labels = mapping(
                        mapping(mapping(mapping(deployment["spec"])["template"])["metadata"])["labels"]
                    )
                    .compactMapValues { text($0) }
                    return selector.allSatisfy { labels[$0.key] == $0.value }
                })?.key
            else { throw DeploymentError("\(file): Service \(name) selects no Deployment") }
            for port in sequence(spec["ports"]).compactMap({ $0 as? [String: Any] }) {
                guard let number = port["port"] as? Int else { continue }
                let targetPort = text(port["targetPort"]) ?? String(number)
                guard let container = containerPorts[target]?[targetPort] ?? Int(targetPort) else {
                    throw DeploymentError("\(file): Service \(name) targets port \(targetPort), which \(target) lacks")
                }
                for host in [name, "\(name).\(namespace).svc", "\(name).\(namespace).svc.cluster.local"] {
                    aliases["\(host):\(number)"] = (target, container)
                }
            }
        }
        return Project(processes: processes, hosts: hosts, aliases: aliases)
    }
}
