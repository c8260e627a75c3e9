"""memora_bench: MEMORA-Bench (EAM-QA, Planning) on the memora core, as its own colcon (ament_python) package."""
from setuptools import find_packages, setup

PACKAGE = "memora_bench"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(include=[PACKAGE, f"{PACKAGE}.*"]),
    package_data={f"{PACKAGE}.runners": ["templates/*.html"], f"{PACKAGE}.memopt": ["templates/*.html"]},
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="memora",
    maintainer_email="memora@example.invalid",
    description="MEMORA-Bench evaluation and construction pipelines for memora",
    license="Apache-2.0",
    python_requires=">=3.11",
    entry_points={"console_scripts": ["memora-bench = memora_bench.cli:main"]},
)
