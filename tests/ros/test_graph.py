"""The node-graph definition (no ROS needed): validation, argument handling, resolution to commands."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from memora_core.runtime.graph import GraphDef, load_graph, resolve_executable

REPO = Path(__file__).resolve().parents[2]


def test_repository_graph_loads_and_resolves_params():
    graph = load_graph(REPO / "launch" / "graph.yaml")
    values = graph.argument_values({"robot": "sim"})
    nodes = graph.nodes_for(values)
    assert nodes, "the demo graph must start something"
    for node in nodes:
        for f in graph.param_files(node, values):
            assert "ros__parameters" in f.read_text()


def test_bad_arguments_are_refused():
    graph = load_graph(REPO / "launch" / "graph.yaml")
    with pytest.raises(ValueError, match="must be one of"):
        graph.argument_values({"robot": "spot"})
    with pytest.raises(ValueError, match="unknown launch arguments"):
        graph.argument_values({"robto": "sim"})


def test_when_filters_and_overrides(tmp_path):
    (tmp_path / "p.yaml").write_text("/**:\n  ros__parameters: {}\n")
    graph = GraphDef.model_validate({
        "arguments": {"robot": {"default": "sim", "choices": ["sim", "g1"]}, "n": {"default": "3"}},
        "params_dirs": [str(tmp_path)],
        "nodes": [{"name": "sim", "executable": "simulator", "when": {"robot": "sim"}, "params": ["p.yaml"]},
                  {"name": "ctl", "executable": "controller", "set": {"count": "{n}", "empty": "[]"}}]})
    assert [n.name for n in graph.nodes_for(graph.argument_values({"robot": "g1"}))] == ["ctl"]
    values = graph.argument_values()
    ctl = graph.nodes[1]
    assert graph.param_overrides(ctl, values) == {"count": 3}  # typed; empty list = not set


def test_invalid_graphs_name_the_problem(tmp_path):
    with pytest.raises(ValueError, match="repeated"):
        GraphDef.model_validate({"nodes": [{"name": "a", "executable": "x"}, {"name": "a", "executable": "y"}]})
    with pytest.raises(ValueError, match="unknown arguments"):
        GraphDef.model_validate({"nodes": [{"name": "a", "executable": "x", "when": {"robot": "sim"}}]})
    with pytest.raises(ValueError, match="node name"):
        GraphDef.model_validate({"nodes": [{"name": "Bad-Name", "executable": "x"}]})
    with pytest.raises(ValueError, match="not one of the choices"):
        GraphDef.model_validate({"arguments": {"r": {"default": "z", "choices": ["a"]}}, "nodes": []})


def test_executables_resolve_through_the_ament_index(tmp_path):
    prefix = tmp_path / "install"
    (prefix / "share" / "ament_index" / "resource_index" / "packages").mkdir(parents=True)
    (prefix / "share" / "ament_index" / "resource_index" / "packages" / "pkg").touch()
    exe = prefix / "lib" / "pkg" / "tool"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert resolve_executable("pkg", "tool", [tmp_path / "other", prefix]) == exe
    with pytest.raises(FileNotFoundError, match="no executable"):
        resolve_executable("pkg", "missing", [prefix])
    with pytest.raises(FileNotFoundError, match="not found on AMENT_PREFIX_PATH"):
        resolve_executable("nopkg", "tool", [prefix])
